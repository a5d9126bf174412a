//! All integration tests, one binary: `mod` per area, shared helpers in `util`.

mod cat_diff;
mod cat_format_prop;
mod cat_shape;
mod faults;
mod generated;
mod hostile;
mod install;
mod locale_diff;
mod multicall;
mod util;
mod wc_diff;
mod wc_shape;
mod yes_diff;
mod yes_shape;
