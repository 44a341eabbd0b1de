//! Safe views of the input columns (borrowed Arrow buffers, one per chunk) and the owned
//! output columns.

use crate::buffers;

/// A validity bitmap: bit `offset + i` says whether row `i` is valid.
#[derive(Clone, Copy)]
pub struct Bitmap<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Bitmap<'a> {
    pub fn new(bytes: &'a [u8], offset: usize) -> Self {
        Self { bytes, offset }
    }

    #[inline]
    pub fn get(&self, i: usize) -> bool {
        let bit = self.offset + i;
        self.bytes[bit >> 3] & (1 << (bit & 7)) != 0
    }

    /// The same bits from row `start` on.
    pub fn from_row(&self, start: usize) -> Self {
        Self { bytes: self.bytes, offset: self.offset + start }
    }

    /// Bits `i .. i + 64` as one word, row `i` in the lowest bit (bits past the bitmap's end
    /// read as 0): a block of rows' validity read at once, without a branch per row.
    #[inline]
    pub fn word(&self, i: usize) -> u64 {
        let bit = self.offset + i;
        let (byte, shift) = (bit >> 3, bit & 7);
        let mut window = [0u8; 16];
        let available = self.bytes.len().saturating_sub(byte).min(9);
        window[..available].copy_from_slice(&self.bytes[byte..byte + available]);
        let low = u64::from_le_bytes([
            window[0], window[1], window[2], window[3], window[4], window[5], window[6], window[7],
        ]);
        // The ninth byte's low bits complete the word when the bitmap is not byte-aligned.
        let high = if shift == 0 { 0 } else { u64::from(window[8]) << (64 - shift) };
        (low >> shift) | high
    }
}

#[derive(Clone)]
pub enum Values<'a> {
    F64(&'a [f64]),
    I64(&'a [i64]),
    /// Narrower integers (Int32, UInt32, Int16, UInt16, Int8, UInt8), read as Int64.
    I32(&'a [i32]),
    U32(&'a [u32]),
    I16(&'a [i16]),
    U16(&'a [u16]),
    I8(&'a [i8]),
    U8(&'a [u8]),
    /// Arrow LargeUtf8: offsets (already sliced to the chunk) into one data buffer.
    LargeText { offsets: &'a [i64], data: &'a [u8] },
    /// Arrow Utf8View: 16-byte views, inline up to 12 bytes, else in one of the data buffers.
    ViewText { views: &'a [[u8; 16]], data: Vec<&'a [u8]> },
    /// Arrow LargeList: offsets (already sliced to the chunk) into one child column.
    LargeList { offsets: &'a [i64], child: Box<Column<'a>> },
}

#[derive(Clone)]
pub struct Chunk<'a> {
    pub len: usize,
    pub values: Values<'a>,
    pub validity: Option<Bitmap<'a>>,
}

impl Chunk<'_> {
    /// Value `i` of an integer chunk, as Int64 (None: not an integer chunk).
    #[inline]
    pub fn integer(&self, i: usize) -> Option<i64> {
        match self.values {
            Values::I64(v) => Some(v[i]),
            Values::I32(v) => Some(i64::from(v[i])),
            Values::U32(v) => Some(i64::from(v[i])),
            Values::I16(v) => Some(i64::from(v[i])),
            Values::U16(v) => Some(i64::from(v[i])),
            Values::I8(v) => Some(i64::from(v[i])),
            Values::U8(v) => Some(i64::from(v[i])),
            _ => None,
        }
    }

    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity.map_or(true, |v| v.get(i))
    }

    /// The bytes of string `i`.
    #[inline]
    pub fn text(&self, i: usize) -> &[u8] {
        match &self.values {
            Values::LargeText { offsets, data } => {
                &data[offsets[i] as usize..offsets[i + 1] as usize]
            }
            Values::ViewText { views, data } => {
                let view = &views[i];
                let len = u32::from_le_bytes([view[0], view[1], view[2], view[3]]) as usize;
                if len <= 12 {
                    &view[4..4 + len]
                } else {
                    let buffer = u32::from_le_bytes([view[8], view[9], view[10], view[11]]) as usize;
                    let start = u32::from_le_bytes([view[12], view[13], view[14], view[15]]) as usize;
                    &data[buffer][start..start + len]
                }
            }
            _ => &[],
        }
    }
}

#[derive(Clone)]
pub struct Column<'a> {
    pub name: String,
    pub chunks: Vec<Chunk<'a>>,
}

impl<'a> Chunk<'a> {
    /// Rows `start..end` of the chunk, borrowing the same buffers.
    pub fn slice(&self, start: usize, end: usize) -> Chunk<'a> {
        let values = match &self.values {
            Values::F64(v) => Values::F64(&v[start..end]),
            Values::I64(v) => Values::I64(&v[start..end]),
            Values::I32(v) => Values::I32(&v[start..end]),
            Values::U32(v) => Values::U32(&v[start..end]),
            Values::I16(v) => Values::I16(&v[start..end]),
            Values::U16(v) => Values::U16(&v[start..end]),
            Values::I8(v) => Values::I8(&v[start..end]),
            Values::U8(v) => Values::U8(&v[start..end]),
            Values::LargeText { offsets, data } => Values::LargeText { offsets: &offsets[start..=end], data },
            Values::ViewText { views, data } => Values::ViewText { views: &views[start..end], data: data.clone() },
            Values::LargeList { offsets, child } => {
                Values::LargeList { offsets: &offsets[start..=end], child: child.clone() }
            }
        };
        Chunk { len: end - start, values, validity: self.validity.map(|bits| bits.from_row(start)) }
    }
}

impl<'a> Column<'a> {
    /// A list column's values, one list after another, and where each list starts (the
    /// number of values last): the rows of each group, as ``implode()`` hands them over
    /// inside ``group_by().agg()``. None: not a list column.
    pub fn list_values(&self) -> Option<(Vec<usize>, Column<'a>)> {
        let mut bounds = vec![0usize];
        let mut chunks = Vec::new();
        for chunk in &self.chunks {
            let Values::LargeList { offsets, child } = &chunk.values else { return None };
            let (first, last) = (offsets[0] as usize, offsets[chunk.len] as usize);
            let base = bounds[bounds.len() - 1];
            bounds.extend(offsets[1..=chunk.len].iter().map(|&at| base + (at as usize - first)));
            // The child's rows first..last, across its chunks.
            let mut at = 0usize;
            for part in &child.chunks {
                let (start, end) = (first.max(at), last.min(at + part.len));
                if start < end {
                    chunks.push(part.slice(start - at, end - at));
                }
                at += part.len;
            }
        }
        Some((bounds, Column { name: self.name.clone(), chunks }))
    }
}

impl Column<'_> {
    pub fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.len).sum()
    }

    pub fn is_text(&self) -> bool {
        self.chunks
            .iter()
            .all(|c| matches!(c.values, Values::LargeText { .. } | Values::ViewText { .. }))
    }

    pub fn is_integer(&self) -> bool {
        self.chunks.iter().all(|c| {
            matches!(
                c.values,
                Values::I64(_)
                    | Values::I32(_)
                    | Values::U32(_)
                    | Values::I16(_)
                    | Values::U16(_)
                    | Values::I8(_)
                    | Values::U8(_)
            )
        })
    }

    pub fn is_float(&self) -> bool {
        self.chunks.iter().all(|c| matches!(c.values, Values::F64(_)))
    }

    /// Float values in row order, null as NaN (no copy of the column).
    pub fn floats(&self) -> impl Iterator<Item = f64> + '_ {
        self.chunks.iter().flat_map(|chunk| {
            let values: &[f64] = match chunk.values {
                Values::F64(values) => &values[..chunk.len],
                _ => &[],
            };
            let validity = chunk.validity;
            values.iter().enumerate().map(move |(i, v)| match validity {
                Some(bits) if !bits.get(i) => f64::NAN,
                _ => *v,
            })
        })
    }

    /// Integer values in row order, null as `i64::MIN` (no copy of the column).
    pub fn integers(&self) -> impl Iterator<Item = i64> + '_ {
        self.chunks.iter().flat_map(|chunk| {
            let len = chunk.len;
            let validity = chunk.validity;
            (0..len).map(move |i| {
                if let Some(bits) = validity {
                    if !bits.get(i) {
                        return i64::MIN;
                    }
                }
                chunk.integer(i).unwrap_or(0)
            })
        })
    }

    /// A handle per row, in row order: the value of an integer column, or
    /// (chunk << 32 | row in chunk) of a string column, to resolve with `text_of`.
    pub fn handles(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        if self.is_integer() {
            return Box::new(self.integers().map(|v| v as u64));
        }
        Box::new(
            self.chunks
                .iter()
                .enumerate()
                .flat_map(|(c, chunk)| (0..chunk.len as u64).map(move |i| ((c as u64) << 32) | i)),
        )
    }

    /// Float values in row order, null as NaN, into one vector (chunk by chunk).
    pub fn floats_vec(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.len());
        for chunk in &self.chunks {
            let Values::F64(values) = chunk.values else {
                out.extend(std::iter::repeat(f64::NAN).take(chunk.len));
                continue;
            };
            let values = &values[..chunk.len];
            match chunk.validity {
                None => out.extend_from_slice(values),
                Some(bits) => out.extend(values.iter().enumerate().map(|(i, v)| if bits.get(i) { *v } else { f64::NAN })),
            }
        }
        out
    }

    /// Integer values in row order, null as `i64::MIN`, into one vector (chunk by chunk).
    pub fn integers_vec(&self) -> Vec<i64> {
        fn widen<T: Copy + Into<i64>>(values: &[T], validity: Option<Bitmap<'_>>, out: &mut Vec<i64>) {
            match validity {
                None => out.extend(values.iter().map(|v| (*v).into())),
                Some(bits) => out.extend(values.iter().enumerate().map(|(i, v)| if bits.get(i) { (*v).into() } else { i64::MIN })),
            }
        }
        let mut out = Vec::with_capacity(self.len());
        for chunk in &self.chunks {
            let (n, validity) = (chunk.len, chunk.validity);
            match chunk.values {
                Values::I64(v) => widen(&v[..n], validity, &mut out),
                Values::I32(v) => widen(&v[..n], validity, &mut out),
                Values::U32(v) => widen(&v[..n], validity, &mut out),
                Values::I16(v) => widen(&v[..n], validity, &mut out),
                Values::U16(v) => widen(&v[..n], validity, &mut out),
                Values::I8(v) => widen(&v[..n], validity, &mut out),
                Values::U8(v) => widen(&v[..n], validity, &mut out),
                _ => out.extend(std::iter::repeat(0).take(n)),
            }
        }
        out
    }

    /// A list column's float values for each group of rows (`bounds`: where each group
    /// starts, the number of rows last): the group's first non-null list, its values one
    /// group after another and each group's span of them (None: every list of the group is
    /// null; a null value inside a list reads as NaN).
    pub fn first_float_lists(&self, bounds: &[usize]) -> (Vec<f64>, Vec<Option<(usize, usize)>>) {
        let n_groups = bounds.len().saturating_sub(1);
        let mut values = Vec::new();
        let mut spans: Vec<Option<(usize, usize)>> = vec![None; n_groups];
        let mut children: Vec<Option<Vec<f64>>> = self.chunks.iter().map(|_| None).collect();
        // The chunk holding the group's rows, and its first row (the groups only move forward).
        let (mut c, mut chunk_start) = (0usize, 0usize);
        for (g, span) in spans.iter_mut().enumerate() {
            let (mut row, last) = (bounds[g], bounds[g + 1]);
            // Each chunk the group's rows lie in, until a valid list: most groups' first row.
            while row < last {
                while c < self.chunks.len() && row >= chunk_start + self.chunks[c].len {
                    chunk_start += self.chunks[c].len;
                    c += 1;
                }
                let Some(chunk) = self.chunks.get(c) else { break };
                let end = last.min(chunk_start + chunk.len);
                if let Values::LargeList { offsets, child } = &chunk.values {
                    if let Some(i) = (row - chunk_start..end - chunk_start).find(|&i| chunk.is_valid(i)) {
                        let child = children[c].get_or_insert_with(|| child.floats_vec());
                        let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
                        let start_at = values.len();
                        values.extend_from_slice(&child[start.min(child.len())..end.min(child.len())]);
                        *span = Some((start_at, values.len()));
                        break;
                    }
                }
                row = end;
            }
        }
        (values, spans)
    }

    /// Whether every chunk is a list of floats.
    pub fn is_float_list(&self) -> bool {
        self.chunks
            .iter()
            .all(|c| matches!(&c.values, Values::LargeList { child, .. } if child.is_float()))
    }

    #[inline]
    pub fn text_of(&self, handle: u64) -> &[u8] {
        self.chunks[(handle >> 32) as usize].text((handle & 0xffff_ffff) as usize)
    }
}

/// Random access to a column's values in increasing row order: each chunk is found once as
/// the rows pass it (an earlier row starts the search again from the first chunk).
#[derive(Clone)]
struct Position<'a> {
    column: &'a Column<'a>,
    chunk: usize,
    start: usize,
    end: usize,
}

impl<'a> Position<'a> {
    fn new(column: &'a Column<'a>) -> Self {
        let end = column.chunks.first().map_or(0, |c| c.len);
        Position { column, chunk: 0, start: 0, end }
    }

    /// Move to the chunk holding `row` (returns false past the last row).
    #[inline(never)]
    fn seek(&mut self, row: usize) -> bool {
        if row < self.start {
            *self = Position::new(self.column);
        }
        while row >= self.end {
            if self.chunk + 1 >= self.column.chunks.len() {
                return false;
            }
            self.chunk += 1;
            self.start = self.end;
            self.end += self.column.chunks[self.chunk].len;
        }
        true
    }
}

/// A Float64 column read by row (null as NaN), rows mostly increasing.
#[derive(Clone)]
pub struct FloatCursor<'a> {
    at: Position<'a>,
    values: &'a [f64],
    validity: Option<Bitmap<'a>>,
}

impl<'a> FloatCursor<'a> {
    pub fn new(column: &'a Column<'a>) -> Self {
        let mut cursor = FloatCursor { at: Position::new(column), values: &[], validity: None };
        cursor.load();
        cursor
    }

    fn load(&mut self) {
        let Some(chunk) = self.at.column.chunks.get(self.at.chunk) else { return };
        self.values = match chunk.values {
            Values::F64(values) => &values[..chunk.len],
            _ => &[],
        };
        self.validity = chunk.validity;
    }

    #[inline(always)]
    pub fn get(&mut self, row: usize) -> f64 {
        if row < self.at.start || row >= self.at.end {
            if !self.at.seek(row) {
                return f64::NAN;
            }
            self.load();
        }
        let i = row - self.at.start;
        match self.validity {
            Some(bits) if !bits.get(i) => f64::NAN,
            _ => self.values.get(i).copied().unwrap_or(f64::NAN),
        }
    }

    /// The value at `row`, None where it is null (`get` reads a null as NaN).
    #[inline(always)]
    pub fn value(&mut self, row: usize) -> Option<f64> {
        if row < self.at.start || row >= self.at.end {
            if !self.at.seek(row) {
                return None;
            }
            self.load();
        }
        let i = row - self.at.start;
        match self.validity {
            Some(bits) if !bits.get(i) => None,
            _ => self.values.get(i).copied(),
        }
    }
}

/// The integer chunk a cursor reads (one match per row on a small enum: no dynamic call).
#[derive(Clone, Copy)]
enum Integers<'a> {
    I64(&'a [i64]),
    I32(&'a [i32]),
    U32(&'a [u32]),
    I16(&'a [i16]),
    U16(&'a [u16]),
    I8(&'a [i8]),
    U8(&'a [u8]),
    None,
}

/// A key or item column read by row as handles (`Column::handles`), rows mostly increasing.
#[derive(Clone)]
pub struct HandleCursor<'a> {
    at: Position<'a>,
    text: bool,
    values: Integers<'a>,
    validity: Option<Bitmap<'a>>,
}

impl<'a> HandleCursor<'a> {
    pub fn new(column: &'a Column<'a>) -> Self {
        let text = !column.is_integer();
        let mut cursor = HandleCursor { at: Position::new(column), text, values: Integers::None, validity: None };
        cursor.load();
        cursor
    }

    fn load(&mut self) {
        let Some(chunk) = self.at.column.chunks.get(self.at.chunk) else { return };
        let n = chunk.len;
        self.values = match chunk.values {
            Values::I64(v) => Integers::I64(&v[..n]),
            Values::I32(v) => Integers::I32(&v[..n]),
            Values::U32(v) => Integers::U32(&v[..n]),
            Values::I16(v) => Integers::I16(&v[..n]),
            Values::U16(v) => Integers::U16(&v[..n]),
            Values::I8(v) => Integers::I8(&v[..n]),
            Values::U8(v) => Integers::U8(&v[..n]),
            _ => Integers::None,
        };
        self.validity = chunk.validity;
    }

    /// The row's handle: an integer's value (null: `i64::MIN`), or a string's
    /// (chunk << 32 | row in chunk).
    #[inline(always)]
    pub fn get(&mut self, row: usize) -> u64 {
        if row < self.at.start || row >= self.at.end {
            if !self.at.seek(row) {
                return 0;
            }
            self.load();
        }
        let i = row - self.at.start;
        if self.text {
            return ((self.at.chunk as u64) << 32) | i as u64;
        }
        if let Some(bits) = self.validity {
            if !bits.get(i) {
                return i64::MIN as u64;
            }
        }
        let value = match self.values {
            Integers::I64(v) => v[i],
            Integers::I32(v) => i64::from(v[i]),
            Integers::U32(v) => i64::from(v[i]),
            Integers::I16(v) => i64::from(v[i]),
            Integers::U16(v) => i64::from(v[i]),
            Integers::I8(v) => i64::from(v[i]),
            Integers::U8(v) => i64::from(v[i]),
            Integers::None => 0,
        };
        value as u64
    }
}

/// An owned output column.
pub enum OutData {
    F64(Vec<f64>),
    I64(Vec<i64>),
    /// UInt32: row numbers, which Polars gathers by without a conversion (its index type).
    U32(Vec<u32>),
    /// Arrow LargeUtf8.
    Text { offsets: Vec<i64>, bytes: Vec<u8> },
    /// Arrow Utf8View (Polars' own layout, taken without a copy): 16-byte views, a string of
    /// up to 12 bytes inline, a longer one in a data buffer; `sizes` holds their lengths (on
    /// the heap: the exported pointers must outlive the move of this value).
    TextView { views: Vec<[u8; 16]>, data: Vec<Vec<u8>>, sizes: Vec<i64> },
    /// Float64 with nulls: `valid` is the Arrow validity bitmap (bit i: row i is valid).
    NullableF64 { values: Vec<f64>, valid: Vec<u8>, nulls: usize },
    /// Int64 with nulls.
    NullableI64 { values: Vec<i64>, valid: Vec<u8>, nulls: usize },
    /// Arrow LargeList with nulls: list i is `values[offsets[i]..offsets[i + 1]]` (a
    /// `NullableF64`, or `I64` or `Text`: the lists of a group's ranked items).
    FloatLists { offsets: Vec<i64>, valid: Vec<u8>, nulls: usize, values: Box<OutData> },
}

/// An output's data once Polars released it: a buffer a pool issued (`buffers`) goes back to
/// it, anything else is freed.
pub fn recycle(data: OutData) {
    match data {
        OutData::F64(values) => buffers::FLOATS.recycle(values),
        OutData::I64(values) => buffers::INTEGERS.recycle(values),
        OutData::U32(values) => buffers::ROWS.recycle(values),
        OutData::NullableF64 { values, valid, .. } => {
            buffers::FLOATS.recycle(values);
            buffers::BYTES.recycle(valid);
        }
        OutData::NullableI64 { values, valid, .. } => {
            buffers::INTEGERS.recycle(values);
            buffers::BYTES.recycle(valid);
        }
        OutData::FloatLists { offsets, valid, values, .. } => {
            buffers::INTEGERS.recycle(offsets);
            buffers::BYTES.recycle(valid);
            recycle(*values);
        }
        OutData::Text { .. } | OutData::TextView { .. } => {}
    }
}

/// An Arrow validity bitmap of `flags`, and how many are false (null).
pub fn validity(flags: impl ExactSizeIterator<Item = bool>) -> (Vec<u8>, usize) {
    let bits = Vec::with_capacity(flags.len().div_ceil(8));
    validity_in(bits, flags)
}

/// `validity` of `flags`, the bitmap in a buffer the pools kept (`buffers`; it is an output),
/// `flags` kept for the next call.
pub fn pooled_validity(flags: Vec<bool>) -> (Vec<u8>, usize) {
    let bits = buffers::BYTES.take_output(flags.len().div_ceil(8));
    let found = validity_in(bits, flags.iter().copied());
    buffers::FLAGS.give(flags);
    found
}

/// `validity` written into `bits` (empty, with room for the bitmap).
fn validity_in(mut bits: Vec<u8>, flags: impl ExactSizeIterator<Item = bool>) -> (Vec<u8>, usize) {
    bits.resize(flags.len().div_ceil(8), 0);
    let mut nulls = 0usize;
    for (i, valid) in flags.enumerate() {
        if valid {
            bits[i >> 3] |= 1 << (i & 7);
        } else {
            nulls += 1;
        }
    }
    (bits, nulls)
}

impl OutData {
    pub fn format(&self) -> &'static str {
        match self {
            OutData::F64(_) => "g",
            OutData::I64(_) => "l",
            OutData::U32(_) => "I",
            OutData::Text { .. } => "U",
            OutData::TextView { .. } => "vu",
            OutData::NullableF64 { .. } => "g",
            OutData::NullableI64 { .. } => "l",
            // "+L" and the values' format: `ffi::struct_schema` gives the list its child.
            OutData::FloatLists { values, .. } if matches!(**values, OutData::I64(_)) => "+Ll",
            OutData::FloatLists { values, .. } if matches!(**values, OutData::Text { .. }) => "+LU",
            OutData::FloatLists { .. } => "+L",
        }
    }
}

pub struct OutColumn {
    pub name: String,
    pub data: OutData,
}

impl OutData {
    pub fn len(&self) -> usize {
        match self {
            OutData::F64(v) | OutData::NullableF64 { values: v, .. } => v.len(),
            OutData::I64(v) | OutData::NullableI64 { values: v, .. } => v.len(),
            OutData::U32(v) => v.len(),
            OutData::Text { offsets, .. } | OutData::FloatLists { offsets, .. } => offsets.len().saturating_sub(1),
            OutData::TextView { views, .. } => views.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl OutColumn {
    pub fn len(&self) -> usize {
        self.data.len()
    }
}

#[cfg(test)]
mod tests {
    use super::Bitmap;

    #[test]
    fn a_word_is_the_bits_one_at_a_time() {
        let bytes: Vec<u8> = (0..20u8).map(|b| b.wrapping_mul(37) ^ 0x5a).collect();
        for offset in 0..11 {
            let bits = Bitmap::new(&bytes, offset);
            let n = bytes.len() * 8 - offset;
            for start in [0, 1, 7, 8, 13, 64, 70, n - 64, n - 3] {
                let expected = (0..64).filter(|&j| start + j < n && bits.get(start + j)).fold(0u64, |w, j| w | 1 << j);
                assert_eq!(bits.word(start), expected, "offset {offset}, start {start}");
            }
        }
    }
}
