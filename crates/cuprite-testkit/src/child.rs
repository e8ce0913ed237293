//! Child processes with a bound: [`OutputWithin::output_within`] is `Command::output` that kills
//! a child still running after a limit, so that a test whose child hangs fails and names the
//! command instead of stalling the whole test binary.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a test's child process may run by default before it is killed.
pub const CHILD_LIMIT: Duration = Duration::from_secs(600);

/// [`Command::output`] with a time limit.
///
/// ```
/// use cuprite_testkit::OutputWithin;
/// use std::process::Command;
/// use std::time::Duration;
/// let out = Command::new("sh")
///     .args(["-c", "echo hi; echo oops >&2; exit 3"])
///     .output_within(Duration::from_secs(30))?;
/// assert_eq!(String::from_utf8_lossy(&out.stdout), "hi\n");
/// assert_eq!(String::from_utf8_lossy(&out.stderr), "oops\n");
/// assert_eq!(out.status.code(), Some(3));
/// // A child that outlives its limit is killed; the error carries what it printed.
/// let t = std::time::Instant::now();
/// let e = Command::new("sh")
///     .args(["-c", "echo started; sleep 30"])
///     .output_within(Duration::from_millis(300))
///     .unwrap_err();
/// assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
/// assert!(e.to_string().contains("started"), "{e}");
/// assert!(t.elapsed() < Duration::from_secs(20));
/// # Ok::<(), std::io::Error>(())
/// ```
pub trait OutputWithin {
    /// Runs the command to completion, collecting its stdout and stderr, as `output` does; a
    /// child still running after `limit` is killed and an `Err` (`TimedOut`) names the command
    /// and carries what it printed so far.
    fn output_within(&mut self, limit: Duration) -> std::io::Result<Output>;
}

impl OutputWithin for Command {
    fn output_within(&mut self, limit: Duration) -> std::io::Result<Output> {
        let mut child = self
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        // Both pipes are drained on threads of their own, into buffers this thread can read
        // at any time: a child that fills one pipe while this thread waits would otherwise
        // never end, and a killed child's own children may keep a pipe open after it.
        type Shared = std::sync::Arc<std::sync::Mutex<Vec<u8>>>;
        let drain = |p: Option<Box<dyn Read + Send>>| -> (Shared, std::thread::JoinHandle<()>) {
            let buf: Shared = Default::default();
            let b = buf.clone();
            let h = std::thread::spawn(move || {
                let Some(mut p) = p else { return };
                let mut chunk = [0u8; 8192];
                while let Ok(k) = p.read(&mut chunk) {
                    if k == 0 {
                        break;
                    }
                    b.lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .extend_from_slice(&chunk[..k]);
                }
            });
            (buf, h)
        };
        let (out, out_h) = drain(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let (err, err_h) = drain(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break Some(status);
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        if status.is_some() {
            // The child is gone: its pipes end once whatever it started is gone too (waited for
            // within what is left of the limit).
            while !(out_h.is_finished() && err_h.is_finished()) && start.elapsed() <= limit {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let take = |b: &Shared| b.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (stdout, stderr) = (take(&out), take(&err));
        match status {
            Some(status) => Ok(Output {
                status,
                stdout,
                stderr,
            }),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "{self:?} was still running after {limit:?} and was killed; stdout so far: {}; \
                     stderr so far: {}",
                    String::from_utf8_lossy(&stdout),
                    String::from_utf8_lossy(&stderr)
                ),
            )),
        }
    }
}
