//! Hashing of group keys and item ids: a leaf module (grouping and ranking both read it).

use crate::columns::Column;
use crate::config::Kind;

/// A 64-bit finaliser (murmur3's): every input bit reaches every output bit, so the top bits
/// choose a partition and the low bits a slot of that partition's table.
#[inline]
pub(crate) fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The inverse of an odd number modulo 2^64 (Newton's iteration: each step doubles the bits
/// that are right, from the 3 an odd number is its own inverse to).
const fn inverse(odd: u64) -> u64 {
    let mut inv = odd;
    let mut step = 0;
    while step < 5 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inv)));
        step += 1;
    }
    inv
}

const FIRST_INVERSE: u64 = inverse(0xff51_afd7_ed55_8ccd);
const SECOND_INVERSE: u64 = inverse(0xc4ce_b9fe_1a85_ec53);

/// `mix`'s input from its output (`x ^ x >> 33` is its own inverse): an integer column's value
/// read back from its hash, where the hash is all that was kept.
#[inline]
pub(crate) fn unmix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(SECOND_INVERSE);
    x ^= x >> 33;
    x = x.wrapping_mul(FIRST_INVERSE);
    x ^ (x >> 33)
}

/// A hash of a byte string.
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    let rest = words.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(0x0000_0100_0000_01b3);
    mix(h)
}

/// The group key columns: a row's keys are their handles (`Column::handles`), hashed and
/// compared by value (integers) or by bytes (strings).
pub(crate) struct KeyColumns<'a> {
    pub columns: &'a [&'a Column<'a>],
    pub kinds: &'a [Kind],
}

impl KeyColumns<'_> {
    #[inline(always)]
    pub(crate) fn hash(&self, handles: &[u64]) -> u64 {
        if let [handle] = handles {
            return self.hash_one(0, *handle);
        }
        let mut h = 0u64;
        for (j, handle) in handles.iter().enumerate() {
            let part = self.hash_one(j, *handle);
            h = if j == 0 { part } else { mix(h.rotate_left(5) ^ part) };
        }
        h
    }

    /// The hash of key column `j`'s handle.
    #[inline(always)]
    pub(crate) fn hash_one(&self, j: usize, handle: u64) -> u64 {
        match self.kinds[j] {
            Kind::Integer => mix(handle),
            Kind::Text => hash_bytes(self.columns[j].text_of(handle)),
        }
    }

    /// Whether two rows' key handles name one group.
    #[inline(always)]
    pub(crate) fn equal(&self, a: &[u64], b: &[u64]) -> bool {
        if let ([x], [y], [kind]) = (a, b, self.kinds) {
            return x == y || (*kind == Kind::Text && self.columns[0].text_of(*x) == self.columns[0].text_of(*y));
        }
        self.kinds.iter().enumerate().all(|(j, kind)| {
            let (x, y) = (a[j], b[j]);
            match kind {
                Kind::Integer => x == y,
                Kind::Text => x == y || self.columns[j].text_of(x) == self.columns[j].text_of(y),
            }
        })
    }
}
