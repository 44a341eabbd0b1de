//! The plugin function `logged_sums`: a counterfactual estimate's sums per slot of the new
//! ranking (`kernel::counterfactual`), its inputs checked and its output laid out, one row per
//! placement row in input order; and `item_model`, the doubly robust estimate's reward model
//! read per placement (`kernel::item_model`).

use serde::Deserialize;

use crate::columns::{validity, Column, OutColumn, OutData};
use crate::config::Kind;
use crate::kernel::counterfactual::{logged_sums, Asked, Logged, Model};
use crate::kernel::item_model::{item_model, ItemModelInput};
use crate::kernel::hashing::KeyColumns;

/// What `polars_rankk/core/kernel/logged.py` sends.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Kwargs {
    keys: Vec<Kind>,
    item: Kind,
    list: Option<Kind>,
    model: String,
    theta: Vec<f64>,
    clip: Option<f64>,
    placed: usize,
    /// Whether the log has a logging-propensity column (without one it is 1).
    display: bool,
}

/// The output columns, in order, after the two the position-based and item-position sums share.
const FLOATS: [&str; 6] = ["weighted_reward", "control", "reward", "__largest_weight", "__weight_sum", "__weight_squares"];
const COUNTS: [&str; 2] = ["__weighted_rows", "__repeated"];

fn parse(kwargs: &[u8]) -> Result<Kwargs, String> {
    serde_pickle::from_slice(kwargs, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))
}

fn n_inputs(asked: &Kwargs) -> usize {
    asked.keys.len() + 3 + usize::from(asked.display) + usize::from(asked.list.is_some())
}

/// The output fields: the sums as Float64, the counts and the flag as Int64.
pub fn fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    let asked = parse(kwargs)?;
    if inputs.len() != n_inputs(&asked) {
        return Err(format!("the rankk kernel's logged sums expect {} input columns, got {}", n_inputs(&asked), inputs.len()));
    }
    let floats = FLOATS.iter().map(|name| (name.to_string(), "g".to_string()));
    Ok(floats.chain(COUNTS.iter().map(|name| (name.to_string(), "l".to_string()))).collect())
}

fn expect(column: &Column<'_>, fits: bool, what: &str) -> Result<(), String> {
    if fits {
        Ok(())
    } else {
        Err(format!("column {:?}: the rankk kernel expected {what} values", column.name))
    }
}

fn expect_kind(column: &Column<'_>, kind: Kind) -> Result<(), String> {
    match kind {
        Kind::Integer => expect(column, column.is_integer(), "Int64"),
        Kind::Text => expect(column, column.is_text(), "String"),
    }
}

/// `logged_sums`: per placement row, its slot's sums over the log rows that show its item.
/// The columns: the keys, the item, the rank (placements) or position (log), the reward and,
/// where the kwargs say so, the logging propensity and the logged list.
pub fn compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let asked = parse(kwargs)?;
    if columns.len() != n_inputs(&asked) {
        return Err(format!("the rankk kernel's logged sums expect {} input columns, got {}", n_inputs(&asked), columns.len()));
    }
    let (keys, rest) = columns.split_at(asked.keys.len());
    for (column, kind) in keys.iter().zip(&asked.keys) {
        expect_kind(column, *kind)?;
    }
    let (item, at, reward) = (&rest[0], &rest[1], &rest[2]);
    expect_kind(item, asked.item)?;
    expect(at, at.is_integer(), "Int64")?;
    expect(reward, reward.is_float() || reward.is_integer(), "Float64 or integer")?;
    let display = asked.display.then(|| &rest[3]);
    if let Some(column) = display {
        expect(column, column.is_float(), "Float64")?;
    }
    let next = 3 + usize::from(asked.display);
    let list = match asked.list {
        Some(kind) => {
            expect_kind(&rest[next], kind)?;
            Some((&rest[next], kind))
        }
        None => None,
    };
    if let Some(column) = columns.iter().find(|c| c.len() != at.len()) {
        return Err(format!("column {:?} has {} rows where the ranks have {}", column.name, column.len(), at.len()));
    }
    if asked.placed > at.len() {
        return Err(format!("{} placements asked of {} rows", asked.placed, at.len()));
    }
    let model = match asked.model.as_str() {
        "pbm" => Model::PositionBased,
        "item_position" => Model::ItemPosition,
        other => return Err(format!("the rankk kernel's logged sums do not weigh click model {other:?}")),
    };
    let key_columns: Vec<&Column<'_>> = keys.iter().collect();
    let logged = Logged {
        keys: KeyColumns { columns: &key_columns, kinds: &asked.keys },
        item,
        item_kind: asked.item,
        at,
        reward,
        display,
        list,
    };
    let sums = logged_sums(&logged, &Asked { model, theta: &asked.theta, clip: asked.clip, placed: asked.placed });
    let slots = &sums.slots;
    let floats: [fn(&crate::kernel::counterfactual::SlotSums) -> f64; 6] = [
        |s| s.weighted_reward,
        |s| s.control,
        |s| s.reward,
        |s| if s.rows == 0 { 0.0 } else { s.largest_weight },
        |s| s.weight_sum,
        |s| s.weight_squares,
    ];
    let mut out: Vec<OutColumn> = FLOATS
        .iter()
        .zip(floats)
        .map(|(name, value)| OutColumn { name: name.to_string(), data: OutData::F64(slots.iter().map(value).collect()) })
        .collect();
    out.push(OutColumn {
        name: COUNTS[0].to_string(),
        data: OutData::I64(slots.iter().map(|s| i64::from(s.weighted_rows)).collect()),
    });
    out.push(OutColumn { name: COUNTS[1].to_string(), data: OutData::I64(sums.repeated.iter().map(|r| i64::from(*r)).collect()) });
    Ok(out)
}

/// What `polars_rankk/core/kernel/logged.py`'s `item_model` sends.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ItemModelKwargs {
    item: Kind,
    theta: Vec<f64>,
    placed: usize,
}

fn parse_item_model(kwargs: &[u8]) -> Result<ItemModelKwargs, String> {
    serde_pickle::from_slice(kwargs, serde_pickle::DeOptions::new())
        .map_err(|error| format!("the rankk kernel's keyword arguments: {error}"))
}

/// The reward model's output field: the prediction as Float64.
pub fn item_model_fields(kwargs: &[u8], inputs: &[(String, String)]) -> Result<Vec<(String, String)>, String> {
    parse_item_model(kwargs)?;
    if inputs.len() != 3 {
        return Err(format!("the rankk kernel's reward model expects 3 input columns, got {}", inputs.len()));
    }
    Ok(vec![("predicted_reward".to_string(), "g".to_string())])
}

/// `item_model`: per placement row, the doubly robust estimate's reward model under the
/// position-based model (`kernel::item_model`), null where the log never shows its item. The
/// columns: the item, the rank (placements) or position (log), and the reward.
pub fn item_model_compute(kwargs: &[u8], columns: &[Column<'_>]) -> Result<Vec<OutColumn>, String> {
    let asked = parse_item_model(kwargs)?;
    let [item, at, reward] = columns else {
        return Err(format!("the rankk kernel's reward model expects 3 input columns, got {}", columns.len()));
    };
    expect_kind(item, asked.item)?;
    expect(at, at.is_integer(), "Int64")?;
    expect(reward, reward.is_float() || reward.is_integer(), "Float64 or integer")?;
    if let Some(column) = columns.iter().find(|c| c.len() != at.len()) {
        return Err(format!("column {:?} has {} rows where the ranks have {}", column.name, column.len(), at.len()));
    }
    if asked.placed > at.len() {
        return Err(format!("{} placements asked of {} rows", asked.placed, at.len()));
    }
    let input = ItemModelInput { item, item_kind: asked.item, at, reward, theta: &asked.theta, placed: asked.placed };
    let predicted = item_model(&input);
    let (valid, nulls) = validity(predicted.iter().map(Option::is_some));
    let values = predicted.iter().map(|value| value.unwrap_or(0.0)).collect();
    Ok(vec![OutColumn { name: "predicted_reward".to_string(), data: OutData::NullableF64 { values, valid, nulls } }])
}
