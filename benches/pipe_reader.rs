//! Benchmark helper: drains standard input (a pipe) and reports the throughput.
//!
//!     pipe_reader splice|read BYTES
//!
//! `splice` moves the data into /dev/null without copying it (what `pv` does), `read` copies it
//! into a 128 KiB buffer (what most programs do). Timing starts when the first byte arrives, so
//! the producer's start-up is not measured; the reader stops after BYTES and prints
//! `BYTES SECONDS GIB_PER_S` on standard output. The pipe's size is left as the producer set it.

use rapidutils::platform;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, total) = match args.as_slice() {
        [_, mode, total] => (mode.as_str(), total.parse::<u64>().expect("BYTES must be a number")),
        _ => {
            eprintln!("usage: pipe_reader splice|read BYTES");
            std::process::exit(2);
        }
    };
    let devnull = std::fs::OpenOptions::new().write(true).open("/dev/null").expect("/dev/null");
    let null_fd = std::os::fd::AsRawFd::as_raw_fd(&devnull);
    let mut buf = vec![0u8; 128 * 1024];
    let mut moved: u64 = 0;
    let mut start = None;
    while moved < total {
        let want = (total - moved).min(1 << 20) as usize;
        let got = match mode {
            "splice" => platform::splice(platform::STDIN, null_fd, want),
            "read" => {
                let want = want.min(buf.len());
                platform::read(platform::STDIN, &mut buf[..want])
            }
            _ => panic!("mode must be splice or read"),
        };
        match got {
            Ok(0) => break,
            Ok(n) => {
                start.get_or_insert_with(Instant::now);
                moved += n as u64;
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => panic!("{mode}: {err}"),
        }
    }
    let secs = start.map_or(0.0, |s| s.elapsed().as_secs_f64());
    println!("{moved} {secs:.6} {:.3}", moved as f64 / secs / (1u64 << 30) as f64);
}
