//! A passage's document id read where it lies: its length (the passage id up to the first
//! delimiter), its hash and its first bytes as words, in one pass over the id's 8-byte
//! words. A one-byte delimiter is found in each word at once (the bytes equal to it are the
//! zero bytes of the word xor the delimiter repeated); a longer one byte by byte first.

use super::hashing::mix;

/// The id's first `HEAD` words are kept beside its hash: two ids of at most `8 * HEAD` bytes
/// are equal when their lengths and these words are.
pub(super) const HEAD: usize = 4;

/// One document id, as read from its passage id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Id {
    pub length: usize,
    /// The passage id starts with the delimiter (its document id is empty).
    pub starts: bool,
    pub hash: u64,
    /// The id's bytes as little-endian words, zero past its end (the first `HEAD` words).
    pub head: [u64; HEAD],
}

impl Id {
    /// Whether the id's bytes are all in `head`.
    #[inline]
    pub(super) fn in_head(&self) -> bool {
        self.length <= 8 * HEAD
    }
}

const SEED: u64 = 0x9e37_79b9_7f4a_7c15;
const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
fn step(hash: u64, word: u64) -> u64 {
    (hash ^ word).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29)
}

#[inline(always)]
fn finish(hash: u64, tail: u64, length: usize) -> u64 {
    mix(step(hash, tail) ^ length as u64)
}

/// The word's first `bytes` bytes (the rest zero).
#[inline(always)]
fn first_bytes(word: u64, bytes: usize) -> u64 {
    if bytes == 0 {
        0
    } else {
        word & (u64::MAX >> (64 - 8 * bytes))
    }
}

/// The first byte of `word` equal to the one repeated in `pattern` (the lowest flagged byte of
/// the zero-byte test is always a true one).
#[inline(always)]
fn first_match(word: u64, pattern: u64) -> Option<usize> {
    let x = word ^ pattern;
    let found = x.wrapping_sub(LOW) & !x & HIGH;
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

#[inline(always)]
fn keep(head: &mut [u64; HEAD], index: usize, word: u64) {
    if let Some(slot) = head.get_mut(index) {
        *slot = word;
    }
}

#[inline(always)]
fn word_at(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// The document id of `text` under a one-byte `delimiter`.
#[inline]
fn read_one_byte(text: &[u8], delimiter: u8) -> Id {
    let pattern = LOW.wrapping_mul(u64::from(delimiter));
    let mut hash = SEED;
    let mut head = [0u64; HEAD];
    let mut words = text.chunks_exact(8);
    let mut index = 0usize;
    for word in &mut words {
        let word = word_at(word);
        if let Some(byte) = first_match(word, pattern) {
            let tail = first_bytes(word, byte);
            keep(&mut head, index, tail);
            let length = 8 * index + byte;
            return Id { length, starts: length == 0, hash: finish(hash, tail, length), head };
        }
        keep(&mut head, index, word);
        hash = step(hash, word);
        index += 1;
    }
    let rest = words.remainder();
    let word = word_at(rest);
    let found = first_match(word, pattern).filter(|byte| *byte < rest.len());
    let byte = found.unwrap_or(rest.len());
    let tail = first_bytes(word, byte);
    keep(&mut head, index, tail);
    let length = 8 * index + byte;
    Id { length, starts: found.is_some() && length == 0, hash: finish(hash, tail, length), head }
}

/// The id that is all of `id`'s bytes.
fn read_whole(id: &[u8]) -> Id {
    let mut hash = SEED;
    let mut head = [0u64; HEAD];
    let mut words = id.chunks_exact(8);
    let mut index = 0usize;
    for word in &mut words {
        let word = word_at(word);
        keep(&mut head, index, word);
        hash = step(hash, word);
        index += 1;
    }
    let tail = word_at(words.remainder());
    keep(&mut head, index, tail);
    Id { length: id.len(), starts: false, hash: finish(hash, tail, id.len()), head }
}

/// The document id of `text`: its bytes up to the first occurrence of `cut` (all of them
/// when `cut` is empty or absent).
#[inline]
pub(super) fn read(text: &[u8], cut: &[u8]) -> Id {
    match cut {
        [byte] => read_one_byte(text, *byte),
        [] => read_whole(text),
        _ => {
            let at = text.windows(cut.len()).position(|w| w == cut);
            let id = read_whole(&text[..at.unwrap_or(text.len())]);
            Id { starts: at == Some(0), ..id }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::rank::before;

    /// Every id of a few bytes, delimiters placed everywhere: the one-byte reading equals
    /// the reading of the prefix `before` cuts.
    #[test]
    fn one_byte_reading_equals_the_prefixes_reading() {
        let alphabet = [b'a', b'#', b'\0', 0xff, b'b'];
        for length in 0..=20usize {
            for seed in 0..200u64 {
                let text: Vec<u8> = (0..length)
                    .map(|i| alphabet[(mix(seed * 31 + i as u64) % alphabet.len() as u64) as usize])
                    .collect();
                for delimiter in [b'#', b'\0', 0xff] {
                    let prefix = before(&text, &[delimiter]);
                    let id = read(&text, &[delimiter]);
                    let whole = read_whole(prefix);
                    assert_eq!((id.length, id.hash, id.head), (whole.length, whole.hash, whole.head), "{text:?}");
                    assert_eq!(id.starts, text.first() == Some(&delimiter));
                }
            }
        }
    }

    #[test]
    fn equal_prefixes_read_alike_and_others_do_not() {
        let a = read(b"msmarco_v2.1_doc_29_677149#3_1156405", b"#");
        let b = read(b"msmarco_v2.1_doc_29_677149#12_99", b"#");
        let c = read(b"msmarco_v2.1_doc_29_677149", b"#");
        let d = read(b"msmarco_v2.1_doc_29_677148#3_1156405", b"#");
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_ne!(a.hash, d.hash);
        assert_eq!(a.length, 26);
        assert!(read(b"#3", b"#").starts && !read(b"", b"#").starts);
        let long = read(b"ab::cd::ef", b"::");
        assert_eq!((long.length, long.starts), (2, false));
        assert!(read(b"::x", b"::").starts);
    }
}
