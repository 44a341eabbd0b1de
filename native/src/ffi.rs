//! Every unsafe line of the crate: the Polars plugin ABI (version 0.1) and the Arrow C Data
//! Interface, turned into borrowed slices on the way in and owned vectors on the way out.
//!
//! Polars hands each input over (`SeriesExport`, one Arrow array per chunk): the plugin
//! releases every input array and then the export itself, on success and on error alike.
//! An error leaves the output empty and sets the thread's last-error message.

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use crate::columns::{Bitmap, Chunk, Column, OutColumn, OutData, Values};

/// The plugin ABI this library speaks: 0.1 (major << 16 | minor).
pub const ABI_VERSION: u32 = 1;

#[repr(C)]
pub struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

#[repr(C)]
pub struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

#[repr(C)]
pub struct SeriesExport {
    field: *mut ArrowSchema,
    arrays: *mut *mut ArrowArray,
    len: usize,
    release: Option<unsafe extern "C" fn(*mut SeriesExport)>,
    private_data: *mut c_void,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: &str) {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = message);
}

#[no_mangle]
pub extern "C" fn _polars_plugin_get_version() -> u32 {
    ABI_VERSION
}

#[no_mangle]
pub extern "C" fn _polars_plugin_get_last_error_message() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The kwargs bytes Polars passes (a pickled dict).
unsafe fn kwargs<'a>(pointer: *const u8, len: usize) -> &'a [u8] {
    if pointer.is_null() || len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(pointer, len)
    }
}

unsafe fn text(pointer: *const c_char) -> String {
    if pointer.is_null() {
        String::new()
    } else {
        CStr::from_ptr(pointer).to_string_lossy().into_owned()
    }
}

// ---------------------------------------------------------------------------------------
// The output dtype.

type FieldFunction = fn(&[u8], &[(String, String)]) -> Result<Vec<(String, String)>, String>;
type ComputeFunction = fn(&[u8], &[Column<'_>]) -> Result<Vec<OutColumn>, String>;

unsafe fn field_call(
    fields: *mut ArrowSchema,
    len: usize,
    return_value: *mut ArrowSchema,
    kwargs_pointer: *const u8,
    kwargs_len: usize,
    function: FieldFunction,
) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let inputs: Vec<(String, String)> = (0..len)
            .map(|i| {
                let field = &*fields.add(i);
                (text(field.name), text(field.format))
            })
            .collect();
        function(kwargs(kwargs_pointer, kwargs_len), &inputs)
    }));
    match result {
        Ok(Ok(outputs)) => ptr::write(return_value, struct_schema(&outputs)),
        Ok(Err(message)) => set_error(&message),
        Err(_) => set_error("the rankk kernel panicked while resolving its output type"),
    }
}

struct SchemaPrivate {
    _format: CString,
    _name: CString,
    children: Vec<*mut ArrowSchema>,
}

unsafe extern "C" fn release_schema(schema: *mut ArrowSchema) {
    if schema.is_null() || (*schema).release.is_none() {
        return;
    }
    let private = Box::from_raw((*schema).private_data as *mut SchemaPrivate);
    for child in &private.children {
        if let Some(release) = (**child).release {
            release(*child);
        }
        drop(Box::from_raw(*child));
    }
    (*schema).release = None;
}

fn schema(name: &str, format: &str, children: Vec<*mut ArrowSchema>) -> ArrowSchema {
    let format = CString::new(format).unwrap_or_default();
    let name = CString::new(name).unwrap_or_default();
    let mut private = Box::new(SchemaPrivate { _format: format, _name: name, children });
    let out = ArrowSchema {
        format: private._format.as_ptr(),
        name: private._name.as_ptr(),
        metadata: ptr::null(),
        flags: 2, // nullable
        n_children: private.children.len() as i64,
        children: private.children.as_mut_ptr(),
        dictionary: ptr::null_mut(),
        release: Some(release_schema),
        private_data: ptr::null_mut(),
    };
    ArrowSchema { private_data: Box::into_raw(private) as *mut c_void, ..out }
}

fn struct_schema(fields: &[(String, String)]) -> ArrowSchema {
    let children = fields
        .iter()
        .map(|(name, format)| {
            // A list's values are its one child (`OutData::FloatLists`): "+L" is Float64,
            // "+L" and a format those of that format.
            let (format, values) = match format.strip_prefix("+L") {
                Some(child) => {
                    let child = if child.is_empty() { "g" } else { child };
                    ("+L", vec![Box::into_raw(Box::new(schema("item", child, Vec::new())))])
                }
                None => (format.as_str(), Vec::new()),
            };
            Box::into_raw(Box::new(schema(name, format, values)))
        })
        .collect();
    schema("group_sums", "+s", children)
}

// ---------------------------------------------------------------------------------------
// The computation.

unsafe fn compute_call(
    inputs: *mut SeriesExport,
    len: usize,
    kwargs_pointer: *const u8,
    kwargs_len: usize,
    return_value: *mut SeriesExport,
    function: ComputeFunction,
) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let columns = (0..len)
            .map(|i| import_column(&*inputs.add(i)))
            .collect::<Result<Vec<_>, String>>();
        columns.and_then(|columns| function(kwargs(kwargs_pointer, kwargs_len), &columns))
    }));
    // The inputs are ours to release, whatever happened.
    for i in 0..len {
        release_input(inputs.add(i));
    }
    match result {
        Ok(Ok(columns)) => ptr::write(return_value, export_struct(columns)),
        Ok(Err(message)) => set_error(&message),
        Err(_) => set_error("the rankk kernel panicked"),
    }
}

/// The entry points Polars looks up by name (`_polars_plugin_field_<name>` resolves a call's
/// output type, `_polars_plugin_<name>` computes it), each a thin call of its plugin function.
macro_rules! field_entry_points {
    ($($entry:ident => $function:path),* $(,)?) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $entry(
            fields: *mut ArrowSchema,
            len: usize,
            return_value: *mut ArrowSchema,
            kwargs_pointer: *const u8,
            kwargs_len: usize,
        ) {
            let function: FieldFunction = $function;
            field_call(fields, len, return_value, kwargs_pointer, kwargs_len, function);
        }
    )*};
}

macro_rules! compute_entry_points {
    ($($entry:ident => $function:path),* $(,)?) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $entry(
            inputs: *mut SeriesExport,
            len: usize,
            kwargs_pointer: *const u8,
            kwargs_len: usize,
            return_value: *mut SeriesExport,
            _context: *mut c_void,
        ) {
            let function: ComputeFunction = $function;
            compute_call(inputs, len, kwargs_pointer, kwargs_len, return_value, function);
        }
    )*};
}

field_entry_points! {
    _polars_plugin_field_group_sums => crate::plugin::output_fields,
    _polars_plugin_field_graded_rows => crate::plugin::graded_fields,
    _polars_plugin_field_group_rows => crate::plugin::group_rows_fields,
    _polars_plugin_field_ranked_items => crate::plugin::ranked_fields,
    _polars_plugin_field_item_ranks => crate::plugin::item_ranks_fields,
    _polars_plugin_field_grouped_metric_sums => crate::plugin::grouped_fields,
    _polars_plugin_field_configuration => crate::plugin::configuration_fields,
    _polars_plugin_field_truth_sums => crate::plugin::truth_fields,
    _polars_plugin_field_documents => crate::documents::fields,
    _polars_plugin_field_logged_sums => crate::counterfactual::fields,
    _polars_plugin_field_item_model => crate::counterfactual::item_model_fields,
    _polars_plugin_field_text_fields => crate::text_fields::fields,
    _polars_plugin_field_label_moments => crate::label_moments::fields,
    _polars_plugin_field_label_rows => crate::labelling::fields,
    _polars_plugin_field_resampled_sums => crate::resample::fields,
}

compute_entry_points! {
    _polars_plugin_group_sums => crate::plugin::compute,
    _polars_plugin_grouped_metric_sums => crate::plugin::grouped_compute,
    _polars_plugin_graded_rows => crate::plugin::graded_rows,
    _polars_plugin_group_rows => crate::plugin::group_rows,
    _polars_plugin_ranked_items => crate::plugin::ranked_items,
    _polars_plugin_item_ranks => crate::plugin::item_ranks,
    _polars_plugin_configuration => crate::plugin::configuration_text,
    _polars_plugin_truth_sums => crate::plugin::truth_compute,
    _polars_plugin_documents => crate::documents::compute,
    _polars_plugin_logged_sums => crate::counterfactual::compute,
    _polars_plugin_item_model => crate::counterfactual::item_model_compute,
    _polars_plugin_text_fields => crate::text_fields::compute,
    _polars_plugin_label_moments => crate::label_moments::compute,
    _polars_plugin_label_rows => crate::labelling::compute,
    _polars_plugin_resampled_sums => crate::resample::compute,
}

unsafe fn release_input(export: *mut SeriesExport) {
    let export = &mut *export;
    if !export.arrays.is_null() {
        for i in 0..export.len {
            let array = *export.arrays.add(i);
            if !array.is_null() {
                if let Some(release) = (*array).release {
                    release(array);
                }
            }
        }
    }
    if let Some(release) = export.release {
        release(export);
    }
}

/// Buffer `index` of `array` as `len` values, borrowed for as long as `array` is: the inputs
/// are released when the call returns, after the last use of the slices.
unsafe fn buffer<'a, T>(array: &'a ArrowArray, index: usize, len: usize) -> Result<&'a [T], String> {
    if index >= array.n_buffers as usize {
        return Err(format!("the Arrow array has no buffer {index}"));
    }
    let pointer = *array.buffers.add(index) as *const T;
    if len == 0 {
        return Ok(&[]);
    }
    if pointer.is_null() {
        return Err(format!("buffer {index} of an Arrow array is null"));
    }
    Ok(std::slice::from_raw_parts(pointer, len))
}

/// Why a column of Arrow `format` is not read, in words: its dtype, its first id where it is
/// a 64- or 128-bit integer (the ids `rk.label` aligns beyond Int64), and what to do.
unsafe fn unread(
    name: &str,
    format: &str,
    array: &ArrowArray,
    offset: usize,
    len: usize,
    validity: Option<Bitmap<'_>>,
) -> String {
    let first = (0..len).find(|&i| validity.map_or(true, |bits| bits.get(i)));
    let example = match (format, first) {
        ("L", Some(i)) => buffer::<u64>(array, 1, offset + len).ok().map(|v| v[offset + i].to_string()),
        ("_pli128", Some(i)) => buffer::<i128>(array, 1, offset + len).ok().map(|v| v[offset + i].to_string()),
        _ => None,
    };
    let dtype = match format {
        "L" => "UInt64",
        "_pli128" => "Int128",
        "f" => "Float32",
        "b" => "Boolean",
        "u" => "Utf8",
        "z" | "Z" | "vz" => "Binary",
        other => other,
    };
    let shown = example.map_or(String::new(), |id| format!(", e.g. the id {id}"));
    format!(
        "column {name:?} holds ids of dtype {dtype}{shown}, which the compiled kernel does not \
         read (integer ids of at most 64 bits, signed, and text): cast them, e.g. \
         pl.col({name:?}).cast(pl.String), which keeps the numbers under ties='trec_eval' (it \
         compares ids as text), or compute without the kernel (POLARS_RANKK_NATIVE=0)"
    )
}

/// A view of one input series, borrowed for as long as the export is (the call's inputs).
unsafe fn import_column<'a>(export: &'a SeriesExport) -> Result<Column<'a>, String> {
    let field = &*export.field;
    let arrays = (0..export.len).map(|i| &**export.arrays.add(i)).collect::<Vec<&'a ArrowArray>>();
    import_arrays(field, &arrays)
}

/// A column of `arrays` (one per chunk) described by `field`; a list's child is imported the
/// same way (its one child array, described by the field's one child).
unsafe fn import_arrays<'a>(field: &'a ArrowSchema, arrays: &[&'a ArrowArray]) -> Result<Column<'a>, String> {
    let name = text(field.name);
    let format = text(field.format);
    let mut chunks = Vec::with_capacity(arrays.len());
    for &array in arrays {
        let len = array.length as usize;
        let offset = array.offset as usize;
        let validity = if array.n_buffers > 0 && !(*array.buffers).is_null() && array.null_count != 0 {
            let bytes = (offset + len).div_ceil(8);
            Some(Bitmap::new(buffer::<u8>(array, 0, bytes)?, offset))
        } else {
            None
        };
        let values = match format.as_str() {
            "g" => Values::F64(&buffer::<f64>(array, 1, offset + len)?[offset..]),
            "l" => Values::I64(&buffer::<i64>(array, 1, offset + len)?[offset..]),
            "i" => Values::I32(&buffer::<i32>(array, 1, offset + len)?[offset..]),
            "I" => Values::U32(&buffer::<u32>(array, 1, offset + len)?[offset..]),
            "s" => Values::I16(&buffer::<i16>(array, 1, offset + len)?[offset..]),
            "S" => Values::U16(&buffer::<u16>(array, 1, offset + len)?[offset..]),
            "c" => Values::I8(&buffer::<i8>(array, 1, offset + len)?[offset..]),
            "C" => Values::U8(&buffer::<u8>(array, 1, offset + len)?[offset..]),
            "U" => {
                let offsets = &buffer::<i64>(array, 1, offset + len + 1)?[offset..];
                let end = offsets.last().copied().unwrap_or(0) as usize;
                Values::LargeText { offsets, data: buffer::<u8>(array, 2, end)? }
            }
            "vu" => {
                let views = &buffer::<[u8; 16]>(array, 1, offset + len)?[offset..];
                let n_data = (array.n_buffers as usize).saturating_sub(3);
                let sizes = if n_data == 0 { &[][..] } else { buffer::<i64>(array, 2 + n_data, n_data)? };
                let data = (0..n_data)
                    .map(|j| buffer::<u8>(array, 2 + j, sizes[j] as usize))
                    .collect::<Result<Vec<_>, _>>()?;
                Values::ViewText { views, data }
            }
            "+L" => {
                if field.n_children != 1 || array.n_children != 1 {
                    return Err(format!("column {name:?}: a list without its one child array"));
                }
                let offsets = &buffer::<i64>(array, 1, offset + len + 1)?[offset..];
                let child = import_arrays(&**field.children, &[&**array.children])?;
                Values::LargeList { offsets, child: Box::new(child) }
            }
            other => return Err(unread(&name, other, array, offset, len, validity)),
        };
        chunks.push(Chunk { len, values, validity });
    }
    Ok(Column { name, chunks })
}

struct ArrayPrivate {
    owners: Vec<OutData>,
    buffers: Vec<*const c_void>,
    children: Vec<*mut ArrowArray>,
}

unsafe extern "C" fn release_array(array: *mut ArrowArray) {
    if array.is_null() || (*array).release.is_none() {
        return;
    }
    let private = Box::from_raw((*array).private_data as *mut ArrayPrivate);
    for child in &private.children {
        if let Some(release) = (**child).release {
            release(*child);
        }
        drop(Box::from_raw(*child));
    }
    (*array).release = None;
    // Polars is done with the buffers: a large one serves a later call's output.
    private.owners.into_iter().for_each(crate::columns::recycle);
}

fn array(length: usize, owner: Option<OutData>, mut children: Vec<*mut ArrowArray>) -> ArrowArray {
    // A list's values are its child array.
    let owner = match owner {
        Some(OutData::FloatLists { offsets, valid, nulls, values }) => {
            children.push(Box::into_raw(Box::new(array(values.len(), Some(*values), Vec::new()))));
            Some(OutData::FloatLists { offsets, valid, nulls, values: Box::new(OutData::F64(Vec::new())) })
        }
        other => other,
    };
    let mut buffers: Vec<*const c_void> = vec![ptr::null()]; // no nulls, unless a bitmap follows
    let mut null_count = 0usize;
    match &owner {
        Some(OutData::NullableF64 { values, valid, nulls }) => {
            (buffers[0], null_count) = (valid.as_ptr() as *const c_void, *nulls);
            buffers.push(values.as_ptr() as *const c_void);
        }
        Some(OutData::NullableI64 { values, valid, nulls }) => {
            (buffers[0], null_count) = (valid.as_ptr() as *const c_void, *nulls);
            buffers.push(values.as_ptr() as *const c_void);
        }
        Some(OutData::FloatLists { offsets, valid, nulls, .. }) => {
            (buffers[0], null_count) = (valid.as_ptr() as *const c_void, *nulls);
            buffers.push(offsets.as_ptr() as *const c_void);
        }
        Some(OutData::F64(values)) => buffers.push(values.as_ptr() as *const c_void),
        Some(OutData::I64(values)) => buffers.push(values.as_ptr() as *const c_void),
        Some(OutData::U32(values)) => buffers.push(values.as_ptr() as *const c_void),
        Some(OutData::Text { offsets, bytes }) => {
            buffers.push(offsets.as_ptr() as *const c_void);
            buffers.push(bytes.as_ptr() as *const c_void);
        }
        Some(OutData::TextView { views, data, sizes }) => {
            // The views, the data buffers, then their lengths (the C data interface's variadic
            // buffer sizes).
            buffers.push(views.as_ptr() as *const c_void);
            buffers.extend(data.iter().map(|bytes| bytes.as_ptr() as *const c_void));
            buffers.push(sizes.as_ptr() as *const c_void);
        }
        None => {}
    }
    let mut private = Box::new(ArrayPrivate {
        owners: owner.into_iter().collect(),
        buffers,
        children,
    });
    let out = ArrowArray {
        length: length as i64,
        null_count: null_count as i64,
        offset: 0,
        n_buffers: private.buffers.len() as i64,
        n_children: private.children.len() as i64,
        buffers: private.buffers.as_mut_ptr(),
        children: private.children.as_mut_ptr(),
        dictionary: ptr::null_mut(),
        release: Some(release_array),
        private_data: ptr::null_mut(),
    };
    ArrowArray { private_data: Box::into_raw(private) as *mut c_void, ..out }
}

struct SeriesPrivate {
    schema: *mut ArrowSchema,
    arrays: Vec<*mut ArrowArray>,
}

unsafe extern "C" fn release_series(export: *mut SeriesExport) {
    if export.is_null() || (*export).release.is_none() {
        return;
    }
    let private = Box::from_raw((*export).private_data as *mut SeriesPrivate);
    // Polars moved each array out (and releases it); free only the boxes.
    for array in &private.arrays {
        drop(Box::from_raw(*array));
    }
    release_schema(private.schema);
    drop(Box::from_raw(private.schema));
    (*export).release = None;
}

fn export_struct(columns: Vec<OutColumn>) -> SeriesExport {
    let length = columns.first().map_or(0, OutColumn::len);
    let fields: Vec<(String, String)> =
        columns.iter().map(|c| (c.name.clone(), c.data.format().to_string())).collect();
    let children = columns
        .into_iter()
        .map(|c| Box::into_raw(Box::new(array(c.len(), Some(c.data), Vec::new()))))
        .collect();
    let parent = Box::into_raw(Box::new(array(length, None, children)));
    let schema = Box::into_raw(Box::new(struct_schema(&fields)));
    let mut private = Box::new(SeriesPrivate { schema, arrays: vec![parent] });
    let out = SeriesExport {
        field: schema,
        arrays: private.arrays.as_mut_ptr(),
        len: 1,
        release: Some(release_series),
        private_data: ptr::null_mut(),
    };
    SeriesExport { private_data: Box::into_raw(private) as *mut c_void, ..out }
}
