//! `wc` on its own.
#![no_main]

fn run(args: Vec<std::ffi::OsString>) -> i32 {
    rapidutils::run_tool(&rapidutils::wc::TOOL, args)
}

rapidutils::entry!(run);
