/*
 * lower_driver.h - what the lowering driver's files share (lower.c, the
 * walk; lower_alias.c, aliases, copies and views; lower_lists.c, lists):
 * the list and copy records and the functions each file calls in another.
 * Not for the symbolic files, which use lower_int.h.
 */
#ifndef PT2ONNX_LOWER_DRIVER_H
#define PT2ONNX_LOWER_DRIVER_H

#include "lower_int.h"

/* A list known element-wise, or (view != NULL) a view record: value
 * `list` is what the aten slice/select `view` took from its input 0, the
 * aten value `base`, so that an in-place op on it writes back into that
 * base. */
struct lw_list {
	struct ir_value *list;
	struct ir_value **vals;
	struct ir_value **keys; /* a dict's (lower_dicts.c), else NULL */
	int n;
	struct ir_node *view;
	struct ir_value *base;
	struct lw_list *next;
};

/* A copy record: aten value v is a new tensor whose value is snap, the
 * value its source had when it was made (y = x.clone()).  v->aux is snap
 * and lw_remap() stops there, so that a later write into x, which moves x's
 * own aux on, leaves y as it was.  The record holds while v->aux is snap:
 * a write into y moves y->aux on, and y then aliases its new value. */
struct lw_copy {
	struct ir_value *v, *snap;
	struct ir_block *blk; /* the block the copy was made in */
	struct lw_copy *next;
};

/* lower.c */
void lw_report(struct lower_ctx *c, struct ir_node *n, const char *why);
struct ir_type *lw_if_out_type(struct lower_ctx *c, struct ir_node *n,
			       uint32_t which, const struct ir_type *t,
			       const struct ir_type *e);
int lw_defined_in(struct ir_block *b, struct ir_value *v);
/* 1 or 0 when a and b are constant strs that are or are not equal, else
 * -1 */
int lw_str_eq(struct lower_ctx *c, struct ir_value *a, struct ir_value *b);

/* lower_alias.c */
void lw_set_copy(struct lower_ctx *c, struct ir_value *v,
		 struct ir_value *snap);
struct ir_value *lw_remap(const struct lower_ctx *c, struct ir_value *v);
struct ir_value *lw_alias_root(const struct lower_ctx *c,
			       struct ir_value *v);
int lw_of_block(const struct lower_ctx *c, const struct ir_value *root);
int lw_copies_input(struct lower_ctx *c, struct ir_node *n, uint32_t i);
void lw_add_view(struct lower_ctx *c, struct ir_value *v,
		 struct ir_node *vn, struct ir_value *base);
int lw_is_view_op(const struct ir_node *n);
int lw_copy_target_ok(struct lower_ctx *c, struct ir_value *v);
int lw_views_ok(struct lower_ctx *c, struct ir_value *v);
int lw_write_back(struct lower_ctx *c, struct ir_value *v);

/* lower_lists.c */
struct lw_list *lw_find_list(struct lower_ctx *c, struct ir_value *v);
int lw_in_loop(struct lower_ctx *c);
struct ir_node *lw_if_lists(struct lower_ctx *c, struct ir_node *n,
			    struct ir_node *nd, struct lw_list **after);
void lw_carry_lists(struct ir_graph *g, struct ir_block *b, int depth);
void lw_fix_seq_dtypes(struct lower_ctx *c, struct ir_node *nd,
		       struct ir_block *b);

/* lower_dicts.c: the dict forms of the list symbolics */
int lw_is_dict(const struct ir_value *v);
void lw_set_dict(struct lower_ctx *c, struct ir_value *d,
		 struct ir_value **keys, struct ir_value **vals, int n);
int lw_dict_getitem(struct lower_ctx *c, struct ir_node *n,
		    struct ir_value **out);
int lw_dict_set_item(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out);
int lw_dict_contains(struct lower_ctx *c, struct ir_node *n,
		     struct ir_value **out);

#endif
