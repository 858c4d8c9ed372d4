pub fn hello() -> u32 { 1 }
