/*
 * quote.c - printable, bounded copies of untrusted names (see quote.h).
 */
#include "quote.h"

const char *quote_bytes(char *dst, size_t cap, const void *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = s;
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned c = p[i];
		size_t need = (c >= 0x20 && c < 0x7f && c != '\\') ? 1 : 4;
		if (o + need + 4 > cap) { /* keep room for "..." and NUL */
			dst[o++] = '.';
			dst[o++] = '.';
			dst[o++] = '.';
			break;
		}
		if (need == 1) {
			dst[o++] = (char)c;
		} else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
	}
	dst[o] = '\0';
	return dst;
}
