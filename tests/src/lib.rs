//! Black-box test suites for Chariot; the tests live in `tests/`.
