//! `wc` on its own.
#![no_main]
#![deny(unsafe_code)]

fn run(args: Vec<rapidutils::common::Arg>) -> i32 {
    rapidutils::run_tool(&rapidutils::wc::TOOL, args)
}

rapidutils::entry!(run);
