use pyo3::prelude::*;
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> { m.add("X", ccscope_core::hello())?; Ok(()) }
