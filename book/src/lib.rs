//! Chariot opening books.
