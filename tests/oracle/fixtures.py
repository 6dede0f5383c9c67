#!/usr/bin/python3
"""fixtures.py - builds the tests' torch models in one Python process per bats
file (tests/helper.bash fixture_run starts and stops it; docs/testing.md).

  fixtures.py serve SOCKET WATCH
      imports torch (and torchvision when present) once, then for each
      request on the Unix socket SOCKET forks a child that runs a build
      script as __main__ in a given directory, so each build sees a fresh
      interpreter state (its own torch.manual_seed, its own classes) as if it
      had been started alone, without paying torch's import again.  Exits
      when the directory WATCH (the bats file's temporary directory) is
      gone, after IDLE seconds without a request, or on a "quit" request.
  fixtures.py run SOCKET DIR SCRIPT [ARG...]
      one request: runs SCRIPT ARG... in DIR with stdout and stderr to
      DIR/.build.log; exits with the build's exit status (75 when the
      server cannot be reached, so the caller can fall back to python3).

A request is one line of JSON {"dir", "argv"}; the answer one line, the
exit status.  Requests are served one at a time."""
import json
import os
import runpy
import socket
import sys


def child(req):
    os.chdir(req["dir"])
    fd = os.open(".build.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    sys.argv = list(req["argv"])
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
    rc = 0
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback
        traceback.print_exc()
        rc = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


IDLE = 300


def serve(path, watch):
    # hold none of the caller's descriptors (bats waits for its pipes to
    # close before it reports a file)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    import torch  # noqa: F401  (the point: imported once, before any fork)
    try:
        import torchvision  # noqa: F401
    except ImportError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(4)
    srv.settimeout(2.0)
    idle = 0.0
    while os.path.exists(path) and os.path.isdir(watch) and idle < IDLE:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            idle += 2.0
            continue
        idle = 0.0
        with conn:
            line = conn.makefile("r").readline()
            if not line or line.strip() == "quit":
                break
            req = json.loads(line)
            pid = os.fork()
            if pid == 0:
                srv.close()
                child(req)
            _, status = os.waitpid(pid, 0)
            rc = os.waitstatus_to_exitcode(status)
            conn.sendall(f"{rc if rc >= 0 else 128 - rc}\n".encode())
    srv.close()
    if os.path.exists(path):
        os.unlink(path)
    try:
        os.rmdir(os.path.dirname(path))
    except OSError:
        pass


def run(path, d, argv):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError:
        return 75
    with s:
        s.sendall((json.dumps({"dir": os.path.abspath(d),
                               "argv": [os.path.abspath(argv[0])] + argv[1:]})
                   + "\n").encode())
        ans = s.makefile("r").readline().strip()
    return int(ans) if ans.lstrip("-").isdigit() else 1


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 5 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2], sys.argv[3], sys.argv[4:]))
    else:
        sys.exit(__doc__)
