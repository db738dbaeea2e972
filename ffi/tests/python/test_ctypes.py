"""The C ABI from Python's ctypes, the standard library only: what a
Python host (or any language with a plain C FFI) sees. The status numbers
come from the committed header, so they are checked against it too.

    python3 ffi/tests/python/test_ctypes.py [path/to/libchariot.so]

The library defaults to target/release's; .ci/extra.sh runs this after
the release build.
"""

import ctypes
import pathlib
import re
import sys
import threading
import time
import unittest
from ctypes import POINTER, byref, c_char_p, c_int, c_int32, c_size_t, c_uint32, c_uint64, c_void_p

ROOT = pathlib.Path(__file__).resolve().parents[3]
HEADER = ROOT / "ffi" / "include" / "chariot.h"
# How long any awaited line may take, in seconds: generous, for a loaded
# 2-core CI machine.
PATIENCE = 60.0

CALLBACK = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_size_t)
# A NULL callback: ctypes takes no None where a function type is declared.
NO_CALLBACK = ctypes.cast(None, CALLBACK)


def header_constants():
    """The status codes and defines of chariot.h, by name."""
    text = HEADER.read_text()
    names = {m[0]: int(m[1]) for m in re.findall(r"\b(CHARIOT_STATUS_\w+) = (\d+)", text)}
    if "UINT32_MAX" in text:
        names["CHARIOT_POLL_FOREVER"] = 2**32 - 1
    return names


S = header_constants()


def load(path):
    lib = ctypes.CDLL(str(path))
    lib.chariot_version.restype = c_char_p
    lib.chariot_version.argtypes = []
    lib.chariot_status_name.restype = c_char_p
    lib.chariot_status_name.argtypes = [c_int32]
    lib.chariot_new.restype = c_int
    lib.chariot_new.argtypes = [CALLBACK, c_void_p, POINTER(c_uint64)]
    lib.chariot_send.restype = c_int
    lib.chariot_send.argtypes = [c_uint64, c_char_p]
    lib.chariot_send_len.restype = c_int
    lib.chariot_send_len.argtypes = [c_uint64, c_char_p, c_size_t]
    lib.chariot_set_callback.restype = c_int
    lib.chariot_set_callback.argtypes = [c_uint64, CALLBACK, c_void_p]
    lib.chariot_poll.restype = c_int
    lib.chariot_poll.argtypes = [c_uint64, c_char_p, c_size_t, POINTER(c_size_t), c_uint32]
    lib.chariot_destroy.restype = c_int
    lib.chariot_destroy.argtypes = [c_uint64]
    return lib


def default_library():
    release = ROOT / "target" / "release"
    for name in ("libchariot.so", "libchariot.dylib", "chariot.dll"):
        if (release / name).exists():
            return release / name
    raise SystemExit("no library in target/release: run `cargo build --release` first")


LIB = None


class Engine:
    """One engine, its output gathered into `lines` by polling or by the
    callback."""

    def __init__(self, callback=False):
        self.lines = []
        self.grew = threading.Condition()
        self.callback = CALLBACK(self._on_line) if callback else NO_CALLBACK
        handle = c_uint64(0)
        status = LIB.chariot_new(self.callback, None, byref(handle))
        assert status == S["CHARIOT_STATUS_OK"], status
        assert handle.value != 0
        self.handle = handle.value

    def _on_line(self, _user, line, length):
        with self.grew:
            assert len(line) == length
            self.lines.append(line.decode())
            self.grew.notify_all()

    def send(self, text):
        return LIB.chariot_send(self.handle, text.encode() if isinstance(text, str) else text)

    def poll(self, cap=4096, timeout_ms=0):
        buf = ctypes.create_string_buffer(cap) if cap else None
        length = c_size_t(0)
        status = LIB.chariot_poll(self.handle, buf, cap, byref(length), timeout_ms)
        line = buf.value.decode() if status == S["CHARIOT_STATUS_OK"] else None
        return status, line, length.value

    def pump(self, timeout_ms):
        """Moves polled lines into `lines` until none comes for
        `timeout_ms`; returns the last status."""
        while True:
            status, line, _ = self.poll(timeout_ms=timeout_ms)
            if status != S["CHARIOT_STATUS_OK"]:
                return status
            with self.grew:
                self.lines.append(line)

    def find(self, prefix, start=0):
        with self.grew:
            for i in range(start, len(self.lines)):
                if self.lines[i].startswith(prefix):
                    return i
        return -1

    def await_line(self, prefix, start=0):
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            at = self.find(prefix, start)
            if at >= 0:
                return at
            if self.callback is not NO_CALLBACK:
                with self.grew:
                    self.grew.wait(0.05)
            else:
                self.pump(50)
        raise AssertionError(f"no line starting with {prefix!r}; got {self.lines[-20:]}")

    def destroy(self):
        return LIB.chariot_destroy(self.handle)


class CAbi(unittest.TestCase):
    def test_version_and_names(self):
        self.assertRegex(LIB.chariot_version().decode(), r"^\d+\.\d+\.\d+ \(commit ")
        for name, code in S.items():
            if name.startswith("CHARIOT_STATUS_"):
                self.assertEqual(LIB.chariot_status_name(code).decode(), name)
        self.assertEqual(LIB.chariot_status_name(-5).decode(), "CHARIOT_STATUS_UNKNOWN")

    def test_handshakes_isready_and_a_search(self):
        e = Engine()
        self.assertEqual(e.send("ucci"), S["CHARIOT_STATUS_OK"])
        at = e.await_line("ucciok")
        self.assertGreaterEqual(e.find("id name Chariot"), 0)
        e.send("isready")
        at = e.await_line("readyok", at + 1)
        e.send("uci\n")
        at = e.await_line("uciok", at + 1)
        e.send("position startpos\ngo depth 5")
        at = e.await_line("bestmove ", at + 1)
        move = e.lines[at].split()[1]
        self.assertRegex(move, r"^[a-i][0-4][a-i][0-9]$")
        self.assertGreaterEqual(e.find("info depth 5 seldepth"), 0)
        self.assertEqual(e.poll()[0], S["CHARIOT_STATUS_WOULD_BLOCK"])
        self.assertEqual(e.destroy(), S["CHARIOT_STATUS_OK"])

    def test_stop_ends_go_infinite_with_a_callback(self):
        e = Engine(callback=True)
        e.send("ucci\ngo infinite")
        at = e.await_line("info depth 3")
        self.assertEqual(e.find("bestmove"), -1)
        self.assertEqual(e.poll()[0], S["CHARIOT_STATUS_WOULD_BLOCK"])
        self.assertEqual(e.send("stop"), S["CHARIOT_STATUS_OK"])
        e.await_line("bestmove ", at)
        self.assertEqual(e.destroy(), S["CHARIOT_STATUS_OK"])

    def test_two_engines_interleaved(self):
        a, b = Engine(), Engine(callback=True)
        self.assertNotEqual(a.handle, b.handle)
        for engine, handshake in ((a, "uci"), (b, "ucci")):
            engine.send(handshake)
        a.send("position startpos\ngo depth 5")
        b.send("position fen 3k5/9/9/9/9/9/9/9/4R4/4K4 w\ngo depth 4")
        a.send("isready")
        b.send("isready")
        a.await_line("bestmove ")
        b.await_line("bestmove e")
        a.await_line("readyok")
        b.await_line("readyok")
        self.assertGreaterEqual(a.find("uciok"), 0)
        self.assertEqual(a.find("ucciok"), -1)
        self.assertGreaterEqual(b.find("ucciok"), 0)
        self.assertEqual(b.find("uciok"), -1)
        self.assertEqual(b.destroy(), S["CHARIOT_STATUS_OK"])
        n = len(a.lines)
        a.send("isready")
        a.await_line("readyok", n)
        self.assertEqual(a.destroy(), S["CHARIOT_STATUS_OK"])

    def test_destroy_during_a_search(self):
        e = Engine(callback=True)
        e.send("uci\ngo infinite")
        e.await_line("info depth 2")
        self.assertEqual(e.destroy(), S["CHARIOT_STATUS_OK"])
        n = len(e.lines)
        time.sleep(0.2)
        self.assertEqual(len(e.lines), n, "the callback ran after destroy")
        self.assertEqual(e.destroy(), S["CHARIOT_STATUS_INVALID_HANDLE"])
        # Batch mode would queue `quit`; destroy still stops the search.
        f = Engine()
        f.send("setoption batch true\ngo depth 60\nisready")
        f.await_line("info depth 2")
        self.assertEqual(f.destroy(), S["CHARIOT_STATUS_OK"])
        self.assertEqual(f.find("readyok"), -1)

    def test_destroy_wakes_a_poll_waiting_forever(self):
        e = Engine()
        result = []
        waiter = threading.Thread(target=lambda: result.append(e.poll(timeout_ms=S["CHARIOT_POLL_FOREVER"])))
        waiter.start()
        time.sleep(0.1)
        self.assertEqual(e.destroy(), S["CHARIOT_STATUS_OK"])
        waiter.join(PATIENCE)
        self.assertEqual(result[0][0], S["CHARIOT_STATUS_INVALID_HANDLE"])

    def test_misuse(self):
        bad = S["CHARIOT_STATUS_INVALID_HANDLE"]
        self.assertEqual(LIB.chariot_new(NO_CALLBACK, None, None), S["CHARIOT_STATUS_NULL_POINTER"])
        self.assertEqual(LIB.chariot_send(0, b"isready"), bad)
        self.assertEqual(LIB.chariot_send(2**63, b"isready"), bad)
        self.assertEqual(LIB.chariot_destroy(0), bad)
        e = Engine()
        self.assertEqual(LIB.chariot_send(e.handle, None), S["CHARIOT_STATUS_NULL_POINTER"])
        self.assertEqual(LIB.chariot_poll(e.handle, None, 0, None, 0), S["CHARIOT_STATUS_NULL_POINTER"])
        self.assertEqual(LIB.chariot_poll(e.handle, None, 8, byref(c_size_t()), 0), S["CHARIOT_STATUS_NULL_POINTER"])
        self.assertEqual(e.send(b"isready\n\xff"), S["CHARIOT_STATUS_INVALID_TEXT"])
        self.assertEqual(LIB.chariot_send_len(e.handle, b"isready\0quit", 12), S["CHARIOT_STATUS_INVALID_TEXT"])
        self.assertEqual(e.send(b"isready\n" + b"x" * (2**20 + 1)), S["CHARIOT_STATUS_LINE_TOO_LONG"])
        self.assertEqual(e.poll(timeout_ms=200)[0], S["CHARIOT_STATUS_WOULD_BLOCK"])
        # A line by length, with no terminator.
        self.assertEqual(LIB.chariot_send_len(e.handle, b"isreadyJUNK", 7), S["CHARIOT_STATUS_OK"])
        deadline = time.monotonic() + PATIENCE
        status, _, length = e.poll(cap=0, timeout_ms=50)
        while status == S["CHARIOT_STATUS_WOULD_BLOCK"] and time.monotonic() < deadline:
            status, _, length = e.poll(cap=0, timeout_ms=50)
        self.assertEqual((status, length), (S["CHARIOT_STATUS_BUFFER_TOO_SMALL"], 7))
        self.assertEqual(e.poll(cap=7)[0], S["CHARIOT_STATUS_BUFFER_TOO_SMALL"])
        self.assertEqual(e.poll(cap=8), (S["CHARIOT_STATUS_OK"], "readyok", 7))
        # Embedded line ends send several lines; junk is a diagnostic.
        e.send("isready\r\nisready\rnonsense here")
        at = e.await_line("readyok")
        e.await_line("readyok", at + 1)
        e.await_line("info string unknown command: nonsense")
        # quit: the rest of the text is not sent, later sends are refused,
        # the last lines can still be taken, then the end is said.
        n = len(e.lines)
        self.assertEqual(e.send("ucci\nquit\nisready"), S["CHARIOT_STATUS_SESSION_ENDED"])
        self.assertEqual(e.send("isready"), S["CHARIOT_STATUS_SESSION_ENDED"])
        self.assertEqual(e.pump(int(PATIENCE * 1000)), S["CHARIOT_STATUS_SESSION_ENDED"])
        self.assertEqual(e.lines[-2:], ["ucciok", "bye"])
        self.assertEqual(e.find("readyok", n), -1)
        self.assertEqual(e.destroy(), S["CHARIOT_STATUS_OK"])
        self.assertEqual(e.destroy(), bad)
        self.assertEqual(e.send("isready"), bad)
        self.assertEqual(e.poll()[0], bad)
        self.assertEqual(LIB.chariot_set_callback(e.handle, NO_CALLBACK, None), bad)


if __name__ == "__main__":
    LIB = load(sys.argv[1] if len(sys.argv) > 1 else default_library())
    unittest.main(argv=sys.argv[:1], verbosity=2)
