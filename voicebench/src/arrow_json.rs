//! Turning one Arrow cell into a JSON value, so nested columns (ifeval `kwargs`) map onto serde types.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use serde_json::{Map, Value};

/// The JSON form of `array[row]`; binary and other types with no JSON form become `null`.
pub fn cell_to_json(array: &ArrayRef, row: usize) -> Value {
    if row >= array.len() || array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Utf8 => Value::from(array.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Value::from(array.as_string::<i64>().value(row)),
        DataType::Utf8View => Value::from(array.as_string_view().value(row)),
        DataType::Boolean => Value::from(array.as_boolean().value(row)),
        DataType::Int8 => Value::from(array.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => Value::from(array.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => Value::from(array.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => Value::from(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Value::from(array.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => Value::from(array.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => Value::from(array.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => Value::from(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => Value::from(f64::from(array.as_primitive::<Float32Type>().value(row))),
        DataType::Float64 => Value::from(array.as_primitive::<Float64Type>().value(row)),
        DataType::List(_) => list_to_json(&array.as_list::<i32>().value(row)),
        DataType::LargeList(_) => list_to_json(&array.as_list::<i64>().value(row)),
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let map: Map<String, Value> = fields
                .iter()
                .zip(s.columns())
                .map(|(f, col)| (f.name().clone(), cell_to_json(col, row)))
                .collect();
            Value::Object(map)
        }
        _ => Value::Null,
    }
}

fn list_to_json(values: &ArrayRef) -> Value {
    Value::Array((0..values.len()).map(|i| cell_to_json(values, i)).collect())
}
