//! The plugin function `text_fields`: the whitespace-separated fields of a text file's lines
//! (a TREC run or qrels), as trec_eval splits them, read by every core at once.
//!
//! The input is the file's path: the file is read here (no copy of its text passes through
//! Python) and split into pieces that end at line ends, each thread splitting its own. A
//! line's fields are separated by runs of
//! ASCII whitespace as C's `isspace` reads it in the C locale (space, tab, newline, vertical
//! tab, form feed, carriage return; Unicode spaces are id characters); a line without a field,
//! or whose first field starts with `#`, is skipped. The asked fields of every other line are
//! written, in file order, as text columns named by their index.
//!
//! A line with fewer fields than asked (or more, unless trailing fields are allowed) ends the
//! call with `MALFORMED`: Python then reads the file with its general reader, which words the
//! error naming the line. Nothing is parsed here: the fields stay text.

use serde::Deserialize;

use crate::columns::{Column, OutColumn, OutData};
use crate::kernel::threads;

/// What `polars_rankk/core/kernel/text_file.py` sends.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Kwargs {
    /// How many fields a line holds.
    n_fields: usize,
    /// Whether a line may hold more (ignored, as trec_eval ignores a run's trailing fields).
    trailing: bool,
    /// The fields written, by their index.
    wanted: Vec<usize>,
}

/// The message that says a line is malformed, or the file unreadable or not UTF-8 (Python
/// then reads it with its general reader, which words what is wrong).
pub const MALFORMED: &str = "rankk text fields: a malformed line";
/// Pieces per thread: enough for the threads' shares to even out.
const PIECES_PER_THREAD: usize = 4;
/// The largest piece: a view reads its field at a 32-bit offset in its piece's data buffer,
/// which holds at most the piece's bytes.
const LARGEST_PIECE: usize = 1 << 30;

fn parse(kwargs: &[u8]) -> Result<Kwargs, String> {
    let asked: Kwargs = serde_pickle::from_slice(kwargs, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))?;
    if let Some(index) = asked.wanted.iter().find(|&&index| index >= asked.n_fields) {
        return Err(format!("the rankk kernel's text fields: field {index} of {}", asked.n_fields));
    }
    Ok(asked)
}

/// The output fields: one text column per asked field, named by its index.
pub fn fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let asked = parse(kwargs)?;
    if inputs.len() != 1 {
        return Err(format!("the rankk kernel's text fields expect 1 input column, got {}", inputs.len()));
    }
    Ok(asked.wanted.iter().map(|index| (index.to_string(), "vu".to_string())).collect())
}

/// C's `isspace` in the C locale, by byte.
const SPACE: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 6 {
        table[[b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r'][i] as usize] = true;
        i += 1;
    }
    table
};

/// A piece's rows written and its data buffer for each asked field (its fields longer than a
/// view holds).
type Piece = (usize, Vec<Vec<u8>>);

/// A field as an Arrow Utf8View view: up to 12 bytes inline, a longer one in data buffer
/// `buffer` (appended to `data`).
#[inline]
fn view_of(field: &[u8], buffer: u32, data: &mut Vec<u8>) -> [u8; 16] {
    let mut view = [0u8; 16];
    view[..4].copy_from_slice(&(field.len() as u32).to_le_bytes());
    if field.len() <= 12 {
        view[4..4 + field.len()].copy_from_slice(field);
    } else {
        view[4..8].copy_from_slice(&field[..4]);
        view[8..12].copy_from_slice(&buffer.to_le_bytes());
        view[12..].copy_from_slice(&(data.len() as u32).to_le_bytes());
        data.extend_from_slice(field);
    }
    view
}

/// The lines of `text`, at most: its line ends, and a last line without one.
fn line_count(text: &[u8]) -> usize {
    // Counted in blocks of at most 255 bytes into a byte, which the compiler vectorises.
    let ends: usize =
        text.chunks(255).map(|block| usize::from(block.iter().fold(0u8, |n, &byte| n + u8::from(byte == b'\n')))).sum();
    ends + usize::from(text.last().is_some_and(|&byte| byte != b'\n'))
}

/// The asked fields of every line of `text` written into `out` (one slice per asked field, a
/// row per line at most), long fields into data buffer `buffer` (returned, one per field);
/// the rows written. Err at a malformed line. One pass over the bytes: each line's fields
/// found as they come, at most one more than asked (enough to know there are more).
fn split(text: &[u8], asked: &Kwargs, out: &mut [&mut [[u8; 16]]], buffer: u32) -> Result<Piece, ()> {
    let mut data: Vec<Vec<u8>> = asked.wanted.iter().map(|_| Vec::new()).collect();
    let most = asked.n_fields + 1;
    let mut found: Vec<(usize, usize)> = Vec::with_capacity(most);
    let (len, mut at, mut row) = (text.len(), 0, 0);
    while at < len {
        found.clear();
        loop {
            while at < len && text[at] != b'\n' && SPACE[text[at] as usize] {
                at += 1;
            }
            if at >= len || text[at] == b'\n' {
                break;
            }
            let start = at;
            while at < len && !SPACE[text[at] as usize] {
                at += 1;
            }
            if found.len() < most {
                found.push((start, at));
            }
        }
        at += 1; // past the line's end
        match found.first() {
            None => continue,
            Some(&(start, _)) if text[start] == b'#' => continue,
            _ => {}
        }
        if found.len() < asked.n_fields || (found.len() > asked.n_fields && !asked.trailing) {
            return Err(());
        }
        for ((column, bytes), &index) in out.iter_mut().zip(data.iter_mut()).zip(&asked.wanted) {
            let (start, end) = found[index];
            column[row] = view_of(&text[start..end], buffer, bytes);
        }
        row += 1;
    }
    Ok((row, data))
}

/// `text` in about `count` pieces, each ending at a line end (the last at the text's).
fn pieces(text: &[u8], count: usize) -> Vec<&[u8]> {
    let mut bounds = vec![0usize];
    for share in 1..count {
        let from = (text.len() * share / count).max(*bounds.last().unwrap_or(&0));
        match text[from..].iter().position(|&byte| byte == b'\n') {
            Some(end) => bounds.push(from + end + 1),
            None => break,
        }
    }
    bounds.push(text.len());
    bounds.windows(2).filter(|w| w[1] > w[0]).map(|w| &text[w[0]..w[1]]).collect()
}

/// `text_fields`: the asked fields of the lines of the file at the input's one path, in file
/// order. Each piece's rows are written straight into its share of the outputs (counted
/// first, so nothing is copied or grown afterwards); rows a piece skipped (comments, blank
/// lines) are closed up at the end.
pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let asked = parse(kwargs)?;
    let [text] = columns else {
        return Err(format!("the rankk kernel's text fields expect 1 input column, got {}", columns.len()));
    };
    if !text.is_text() {
        return Err(format!("column {:?}: the rankk kernel expected String values", text.name));
    }
    let mut paths = text.chunks.iter().flat_map(|chunk| (0..chunk.len).filter(|&i| chunk.is_valid(i)).map(move |i| chunk.text(i)));
    let (Some(path), None) = (paths.next(), paths.next()) else {
        return Err("the rankk kernel's text fields expect one path".to_string());
    };
    let path = std::str::from_utf8(path).map_err(|_| MALFORMED.to_string())?;
    let bytes = std::fs::read(path).map_err(|_| MALFORMED.to_string())?;
    std::str::from_utf8(&bytes).map_err(|_| MALFORMED.to_string())?;
    let threads = threads().max(1);
    let pieces = pieces(&bytes, (threads * PIECES_PER_THREAD).max(bytes.len().div_ceil(LARGEST_PIECE)));
    let lines: Vec<usize> = pieces.iter().map(|piece| line_count(piece)).collect();
    let total: usize = lines.iter().sum();
    let mut views: Vec<Vec<[u8; 16]>> = asked.wanted.iter().map(|_| vec![[0u8; 16]; total]).collect();
    // Each piece's share of every output.
    let mut shares: Vec<Vec<&mut [[u8; 16]]>> = pieces.iter().map(|_| Vec::new()).collect();
    for column in views.iter_mut() {
        let mut rest: &mut [[u8; 16]] = column;
        for (share, &count) in shares.iter_mut().zip(&lines) {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(count);
            share.push(head);
            rest = tail;
        }
    }
    let per_thread = pieces.len().div_ceil(threads).max(1);
    let asked_ref = &asked;
    let written: Vec<Result<Piece, ()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = pieces
            .chunks(per_thread)
            .zip(shares.chunks_mut(per_thread))
            .enumerate()
            .map(|(part, (pieces, shares))| {
                scope.spawn(move || {
                    let first = part * per_thread;
                    let pairs = pieces.iter().zip(shares.iter_mut()).enumerate();
                    pairs.map(|(i, (piece, out))| split(piece, asked_ref, out, (first + i) as u32)).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let written: Vec<Piece> = written.into_iter().collect::<Result<_, ()>>().map_err(|()| MALFORMED.to_string())?;
    let rows: Vec<usize> = written.iter().map(|(rows, _)| *rows).collect();
    let mut buffers: Vec<Vec<Vec<u8>>> = asked.wanted.iter().map(|_| Vec::with_capacity(pieces.len())).collect();
    for (_, data) in written {
        for (column, bytes) in buffers.iter_mut().zip(data) {
            column.push(bytes);
        }
    }
    Ok(asked
        .wanted
        .iter()
        .zip(views)
        .zip(buffers)
        .map(|((index, mut views), data)| {
            closed_up(&mut views, &lines, &rows);
            let sizes = data.iter().map(|bytes| bytes.len() as i64).collect();
            OutColumn { name: index.to_string(), data: OutData::TextView { views, data, sizes } }
        })
        .collect())
}

/// `views`, whose pieces hold `lines` rows each of which the first `rows` were written, with
/// the rows written one after another.
fn closed_up(views: &mut Vec<[u8; 16]>, lines: &[usize], rows: &[usize]) {
    let (mut from, mut to) = (0, 0);
    for (&size, &kept) in lines.iter().zip(rows) {
        if from != to {
            views.copy_within(from..from + kept, to);
        }
        from += size;
        to += kept;
    }
    views.truncate(to);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The strings of `views` over `data`.
    fn strings(views: &[[u8; 16]], data: &[Vec<u8>]) -> Vec<String> {
        views
            .iter()
            .map(|view| {
                let len = u32::from_le_bytes([view[0], view[1], view[2], view[3]]) as usize;
                let bytes = if len <= 12 {
                    view[4..4 + len].to_vec()
                } else {
                    let buffer = u32::from_le_bytes([view[8], view[9], view[10], view[11]]) as usize;
                    let at = u32::from_le_bytes([view[12], view[13], view[14], view[15]]) as usize;
                    assert_eq!(view[4..8], data[buffer][at..at + 4]);
                    data[buffer][at..at + len].to_vec()
                };
                String::from_utf8(bytes).unwrap()
            })
            .collect()
    }

    fn fields_of(text: &str, n_fields: usize, trailing: bool, wanted: &[usize]) -> Result<Vec<Vec<String>>, ()> {
        let asked = Kwargs { n_fields, trailing, wanted: wanted.to_vec() };
        let lines = line_count(text.as_bytes());
        let mut views: Vec<Vec<[u8; 16]>> = wanted.iter().map(|_| vec![[0u8; 16]; lines]).collect();
        let mut out: Vec<&mut [[u8; 16]]> = views.iter_mut().map(|column| column.as_mut_slice()).collect();
        let (rows, data) = split(text.as_bytes(), &asked, &mut out, 0)?;
        Ok(views.iter().zip(&data).map(|(column, bytes)| strings(&column[..rows], std::slice::from_ref(bytes))).collect())
    }

    #[test]
    fn fields_are_split_on_every_c_space_and_comments_and_blank_lines_skipped() {
        let text = "# a comment\nq1 Q0 d1 1 2.5 run\n\n  \t\r\nq1\tQ0  d\u{a0}2\x0b2\x0c1.0 run extra\r\n   # late comment\nq2 Q0 a-document-id-longer-than-twelve 3 0 r";
        let found = fields_of(text, 6, true, &[0, 2, 4]).unwrap();
        assert_eq!(found[0], ["q1", "q1", "q2"]);
        assert_eq!(found[1], ["d1", "d\u{a0}2", "a-document-id-longer-than-twelve"]);
        assert_eq!(found[2], ["2.5", "1.0", "0"]);
    }

    #[test]
    fn a_short_line_or_a_trailing_field_where_none_is_allowed_is_malformed() {
        assert!(fields_of("q1 Q0 d1 1 2.5\n", 6, true, &[0]).is_err());
        assert!(fields_of("q 0 d 1 extra\n", 4, false, &[0]).is_err());
        assert_eq!(fields_of("q 0 d 1\n", 4, false, &[3]).unwrap(), vec![vec!["1".to_string()]]);
    }

    #[test]
    fn pieces_end_at_line_ends_and_cover_the_text() {
        let text = b"a b\nc d\n\ne f\ng";
        for count in 1..8 {
            let found = pieces(text, count);
            assert_eq!(found.concat(), text.to_vec());
            assert!(found[..found.len() - 1].iter().all(|piece| piece.ends_with(b"\n")));
        }
        assert!(pieces(b"", 4).is_empty());
        assert_eq!(line_count(b"a\nb"), 2);
        assert_eq!(line_count(b"a\n\n"), 2);
    }

    #[test]
    fn rows_a_piece_skipped_are_closed_up() {
        let mut views: Vec<[u8; 16]> = (0..7u8).map(|i| [i; 16]).collect();
        // Pieces of 3, 2 and 2 rows of which 2, 2 and 1 were written.
        closed_up(&mut views, &[3, 2, 2], &[2, 2, 1]);
        assert_eq!(views.iter().map(|view| view[0]).collect::<Vec<_>>(), [0, 1, 3, 4, 5]);
    }
}
