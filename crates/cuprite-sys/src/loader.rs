//! Finding and opening CUDA libraries at run time, and resolving their symbols lazily.
//!
//! This module owns library discovery and the symbol cache. It knows nothing of any one
//! library's functions: those are declared with [`dyn_functions!`](crate::dyn_functions) in the
//! per-library modules, which all share this mechanism.
//!
//! A library is opened on the first call of any of its functions, once per process. A symbol is
//! resolved on the first call of that function (or by the library's `resolve_symbols()`) and
//! cached in an atomic pointer, so later calls cost one relaxed load. A missing library or
//! symbol is an `Err`, never a panic.

use std::ffi::{OsStr, OsString, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Why a library function could not be called.
///
/// `Debug` prints the variant's name and then the readable `Display` message (every place
/// tried, one per line), so an `unwrap` or `main() -> Result` shows the list, not a dump.
#[derive(Clone, PartialEq, Eq)]
pub enum LoadError {
    /// No candidate file of the library could be opened.
    LibraryNotFound {
        /// The library, e.g. `"libcuda"`.
        library: &'static str,
        /// Every place tried, in order, each with the loader's reason.
        tried: Vec<String>,
    },
    /// The library was opened but does not export this symbol (for example an older driver).
    SymbolNotFound {
        /// The library, e.g. `"libcuda"`.
        library: &'static str,
        /// The symbol asked for.
        symbol: &'static str,
        /// The file the library was opened from.
        path: String,
    },
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::LibraryNotFound { library, tried } => {
                write!(f, "{library} not found; tried {} places:", tried.len())?;
                for t in tried {
                    write!(f, "\n  - {t}")?;
                }
                Ok(())
            }
            LoadError::SymbolNotFound {
                library,
                symbol,
                path,
            } => write!(
                f,
                "symbol `{symbol}` not found in {library} ({path}); the installed version is probably older than this call needs"
            ),
        }
    }
}

impl std::fmt::Debug for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            LoadError::LibraryNotFound { .. } => "LibraryNotFound",
            LoadError::SymbolNotFound { .. } => "SymbolNotFound",
        };
        write!(f, "{name}: {self}")
    }
}

impl std::error::Error for LoadError {}

/// Where and under which names to look for one library.
#[derive(Debug)]
pub struct LibrarySpec {
    /// Short name used in messages, e.g. `"libnvrtc"`.
    pub name: &'static str,
    /// Environment variable naming a file or a folder that overrides every other place.
    pub env_var: &'static str,
    /// File names for the system loader, most preferred first (Linux).
    pub unix_names: &'static [&'static str],
    /// File names on Windows, most preferred first.
    pub windows_names: &'static [&'static str],
    /// Whether to look in CUDA toolkit folders (`CUDA_PATH`, `/usr/local/cuda`). The driver
    /// library is not part of the toolkit (its `stubs/` copy must never be loaded).
    pub in_toolkit: bool,
    /// Folders under a Python `site-packages` that pip wheels install this library into.
    pub wheel_dirs: &'static [&'static str],
    /// Libraries that this one opens by bare name at run time (file name prefixes, e.g.
    /// `"libnvrtc-builtins"`). When the library came from a folder, the first file in that
    /// folder whose name starts with `<prefix>.so` (Linux) is opened right after it, in this
    /// order (one that fails is retried after the others), and kept, so the library's own
    /// `dlopen` finds it already loaded.
    pub companions: &'static [&'static str],
    /// The major version to prefer, asked when the library is first looked for: names of that
    /// version (`.so.<major>`, `<major>0_0.dll`...) move ahead of the others in every folder.
    /// NVRTC uses the driver's CUDA version, since the driver refuses PTX from a newer NVRTC.
    pub prefer_major: Option<fn() -> Option<u32>>,
}

struct Opened {
    lib: libloading::Library,
    path: String,
    /// Companion libraries preloaded from the same folder; kept open as long as `lib`.
    _companions: Vec<libloading::Library>,
}

/// One dynamically opened library: opened at most once, on first use, and kept for the process.
pub struct DynLibrary {
    spec: &'static LibrarySpec,
    state: OnceLock<Result<Opened, LoadError>>,
}

impl std::fmt::Debug for DynLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynLibrary")
            .field("name", &self.spec.name)
            .field("path", &self.path().ok())
            .finish()
    }
}

impl DynLibrary {
    /// A library that will be looked for as `spec` says, on first use.
    pub const fn new(spec: &'static LibrarySpec) -> Self {
        DynLibrary {
            spec,
            state: OnceLock::new(),
        }
    }

    /// The library's short name.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// Where and under which names it is looked for.
    pub fn spec(&self) -> &'static LibrarySpec {
        self.spec
    }

    fn opened(&self) -> Result<&Opened, LoadError> {
        self.state
            .get_or_init(|| open_library(self.spec))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Opens the library if that was not done yet. Returns the file it came from.
    pub fn path(&self) -> Result<&str, LoadError> {
        self.opened().map(|o| o.path.as_str())
    }

    /// Whether the library can be opened.
    pub fn is_available(&self) -> bool {
        self.opened().is_ok()
    }

    /// Looks `symbol` up (NUL-terminated) and returns its address.
    pub fn symbol(&self, symbol: &'static str) -> Result<*mut c_void, LoadError> {
        let opened = self.opened()?;
        let printable = symbol.trim_end_matches('\0');
        debug_assert!(
            symbol.ends_with('\0'),
            "symbol names must be NUL-terminated"
        );
        // SAFETY: we only read the symbol's address as an untyped pointer; calling it with the
        // right signature is the job of the `dyn_functions!` wrapper that declared it.
        let sym: Result<libloading::Symbol<'_, *mut c_void>, _> =
            unsafe { opened.lib.get(symbol.as_bytes()) };
        match sym {
            Ok(s) if !(*s).is_null() => Ok(*s),
            _ => Err(LoadError::SymbolNotFound {
                library: self.spec.name,
                symbol: leak_name(printable, symbol),
                path: opened.path.clone(),
            }),
        }
    }
}

fn leak_name(printable: &str, original: &'static str) -> &'static str {
    // `original` is 'static and `printable` is its prefix, so re-slice the original.
    &original[..printable.len()]
}

/// The cache slot of one symbol: null until resolved.
#[derive(Debug)]
pub struct SymbolSlot(AtomicPtr<c_void>);

impl SymbolSlot {
    /// An unresolved slot.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        SymbolSlot(AtomicPtr::new(std::ptr::null_mut()))
    }

    /// The symbol's address, resolving it through `lib` on first use.
    #[inline(always)]
    pub fn get(&self, lib: &DynLibrary, symbol: &'static str) -> Result<*mut c_void, LoadError> {
        let p = self.0.load(Ordering::Relaxed);
        if !p.is_null() {
            return Ok(p);
        }
        self.resolve(lib, symbol)
    }

    #[cold]
    #[inline(never)]
    fn resolve(&self, lib: &DynLibrary, symbol: &'static str) -> Result<*mut c_void, LoadError> {
        let p = lib.symbol(symbol)?;
        self.0.store(p, Ordering::Relaxed);
        Ok(p)
    }
}

/// Declares `unsafe fn`s that call into a [`DynLibrary`], each resolving its symbol lazily, and
/// a `resolve_symbols()` that resolves them all at once.
///
/// Every generated function returns `Result<Ret, LoadError>`: `Err` when the library or this one
/// symbol is missing, otherwise the library function's own return value. Use the macro once per
/// module (the slots and `resolve_symbols` are items of that module).
///
/// Why resolve at once: looking a symbol up takes the system loader's lock, which another
/// thread's `dlopen` holds while that library's initialisers run (tens of milliseconds for
/// NVRTC); a first call on a thread that must not wait resolves its symbols beforehand.
#[macro_export]
macro_rules! dyn_functions {
    (library: $lib:expr; $( $(#[$meta:meta])* fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $ret:ty; )* ) => {
        /// One symbol slot per declared function, null until resolved.
        #[allow(non_upper_case_globals)]
        mod __symbol_slots {
            $( pub(super) static $name: $crate::loader::SymbolSlot = $crate::loader::SymbolSlot::new(); )*
        }

        /// Opens the library and resolves every function declared here now, so that no later
        /// call looks its symbol up. Returns how many resolved; a symbol the installed version
        /// lacks stays unresolved, and calling that function is the `Err` it always was.
        pub fn resolve_symbols() -> ::core::result::Result<usize, $crate::LoadError> {
            $lib.path()?;
            let mut resolved = 0;
            $(
                resolved += __symbol_slots::$name
                    .get(&$lib, concat!(stringify!($name), "\0"))
                    .is_ok() as usize;
            )*
            Ok(resolved)
        }

        $(
            $(#[$meta])*
            #[allow(non_snake_case, clippy::too_many_arguments, clippy::missing_safety_doc)]
            #[inline]
            pub unsafe fn $name($($arg: $ty),*) -> ::core::result::Result<$ret, $crate::LoadError> {
                let p = __symbol_slots::$name.get(&$lib, concat!(stringify!($name), "\0"))?;
                // SAFETY: the symbol was exported under this name by the library, whose
                // documented C signature is the one declared here.
                let f: unsafe extern "C" fn($($ty),*) -> $ret = unsafe { ::core::mem::transmute(p) };
                // SAFETY: the caller upholds the library function's own contract.
                Ok(unsafe { f($($arg),*) })
            }
        )*
    };
}

fn open_library(spec: &LibrarySpec) -> Result<Opened, LoadError> {
    let mut tried = Vec::new();
    let near = near_candidates(spec);
    if let Some(opened) = open_first(spec, &near, &mut tried) {
        return Ok(opened);
    }
    // Only now ask Python where its packages are (it starts a `python3` process, far slower
    // than the lookups above).
    if !overridden(spec) {
        let wheels: Vec<OsString> = wheel_candidates(spec)
            .into_iter()
            .filter(|c| !near.contains(c))
            .collect();
        if let Some(opened) = open_first(spec, &wheels, &mut tried) {
            return Ok(opened);
        }
    }
    Err(LoadError::LibraryNotFound {
        library: spec.name,
        tried,
    })
}

/// Opens the first of `list` that loads, noting each failure in `tried`.
fn open_first(spec: &LibrarySpec, list: &[OsString], tried: &mut Vec<String>) -> Option<Opened> {
    for candidate in list {
        // SAFETY: opening a CUDA library runs its initialisers, which have no preconditions.
        match unsafe { libloading::Library::new(candidate) } {
            Ok(lib) => {
                let path = resolved_path(candidate);
                let companions = open_companions(spec, Path::new(&path));
                return Some(Opened {
                    lib,
                    path,
                    _companions: companions,
                });
            }
            Err(e) => tried.push(format!(
                "{}: {}",
                candidate.to_string_lossy(),
                short_reason(candidate, &e)
            )),
        }
    }
    None
}

/// Opens `spec.companions` found beside `path` (Linux), in the listed order. Missing companions
/// are not an error here: the library reports its own failure when it needs one. A companion
/// that fails to open because one it needs is not loaded yet is tried again after the others,
/// until a pass opens nothing new, so the order only has to be a good guess.
fn open_companions(spec: &LibrarySpec, path: &Path) -> Vec<libloading::Library> {
    let mut out = Vec::new();
    if cfg!(windows) || spec.companions.is_empty() {
        return out;
    }
    let Some(dir) = path.parent().filter(|d| d.is_absolute()) else {
        return out;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    files.sort();
    let mut pending: Vec<&PathBuf> = spec
        .companions
        .iter()
        .filter_map(|prefix| {
            let wanted = format!("{prefix}.so");
            files.iter().find(|f| {
                f.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&wanted))
            })
        })
        .collect();
    loop {
        let before = pending.len();
        pending.retain(|f| {
            // SAFETY: as for the library itself: opening runs initialisers without
            // preconditions.
            match unsafe { libloading::Library::new(f) } {
                Ok(lib) => {
                    out.push(lib);
                    false
                }
                Err(_) => true,
            }
        });
        if pending.is_empty() || pending.len() == before {
            return out;
        }
    }
}

/// "not found" when the candidate itself is missing; the loader's whole message otherwise, so
/// that a library present but unloadable (one it needs is missing, as cuSOLVER needs cuSPARSE
/// and nvJitLink) says why.
fn short_reason(candidate: &OsStr, e: &libloading::Error) -> String {
    let s = e.to_string();
    let missing = s.contains("No such file") || s.contains("cannot open shared object");
    let p = Path::new(candidate);
    let names_candidate = s.starts_with(&*candidate.to_string_lossy());
    if missing && (names_candidate || (p.is_absolute() && !p.exists())) {
        "not found".to_string()
    } else {
        s
    }
}

fn resolved_path(candidate: &OsStr) -> String {
    let p = Path::new(candidate);
    if p.is_absolute() {
        return p.display().to_string();
    }
    // A bare name went through the system loader: find the file it picked, for `cuprite info`.
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        let name = candidate.to_string_lossy();
        let stem = name.split(".so").next().unwrap_or(&name).to_string();
        for line in maps.lines() {
            if let Some(path) = line.split_whitespace().nth(5)
                && Path::new(path)
                    .file_name()
                    .is_some_and(|f| f.to_string_lossy().starts_with(&format!("{stem}.so")))
            {
                return path.to_string();
            }
        }
    }
    format!("{} (system loader)", candidate.to_string_lossy())
}

fn names(spec: &LibrarySpec) -> &'static [&'static str] {
    if cfg!(windows) {
        spec.windows_names
    } else {
        spec.unix_names
    }
}

/// `names` with those of the preferred major version first (stable otherwise).
fn ordered_names(spec: &LibrarySpec) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = names(spec).to_vec();
    if let Some(major) = spec.prefer_major.and_then(|f| f()) {
        let so = format!(".so.{major}");
        let dll = format!("{major}0_0.dll");
        let matches =
            |n: &str| n.ends_with(&so) || n.contains(&format!("{so}.")) || n.ends_with(&dll);
        v.sort_by_key(|n| !matches(n));
    }
    v
}

/// Every file or name that would be tried for `spec`, in order.
pub fn candidates(spec: &LibrarySpec) -> Vec<OsString> {
    let mut out = near_candidates(spec);
    if !overridden(spec) {
        for c in wheel_candidates(spec) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

fn overridden(spec: &LibrarySpec) -> bool {
    std::env::var_os(spec.env_var).is_some_and(|v| !v.is_empty())
}

fn in_dir(names: &[&str], dir: &Path) -> Vec<OsString> {
    names.iter().map(|n| dir.join(n).into_os_string()).collect()
}

/// The places tried before pip wheels: the override alone when set, else the toolkit named by
/// the environment, the system loader's search and the default folders; without duplicates.
fn near_candidates(spec: &LibrarySpec) -> Vec<OsString> {
    let names = ordered_names(spec);
    let names = names.as_slice();
    // 1. The override: a file, or a folder to look in. When set, it is the only place tried,
    //    so a wrong override is reported instead of silently bypassed.
    if let Some(v) = std::env::var_os(spec.env_var).filter(|v| !v.is_empty()) {
        let p = PathBuf::from(&v);
        return if p.is_dir() {
            let mut c = in_dir(names, &p);
            for sub in ["lib64", "lib", "bin"] {
                c.extend(in_dir(names, &p.join(sub)));
            }
            c
        } else {
            vec![v]
        };
    }
    let mut out = Vec::new();
    // 2. A toolkit named by CUDA_PATH / CUDA_HOME.
    if spec.in_toolkit {
        for var in ["CUDA_PATH", "CUDA_HOME"] {
            if let Some(root) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                let root = PathBuf::from(root);
                for sub in toolkit_subdirs() {
                    out.extend(in_dir(names, &root.join(sub)));
                }
            }
        }
    }
    // 3. The system loader's own search (LD_LIBRARY_PATH, ld.so.cache, PATH on Windows).
    out.extend(names.iter().map(OsString::from));
    // 4. The default toolkit folders.
    if spec.in_toolkit && !cfg!(windows) {
        for dir in [
            "/usr/local/cuda/lib64",
            "/usr/local/cuda/targets/x86_64-linux/lib",
            "/usr/local/cuda/targets/sbsa-linux/lib",
        ] {
            out.extend(in_dir(names, Path::new(dir)));
        }
    }
    if !spec.in_toolkit && !cfg!(windows) {
        // Where container runtimes and WSL put the driver when ld.so.cache does not know it.
        for dir in [
            "/usr/local/nvidia/lib64",
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib64",
            "/usr/lib/wsl/lib",
        ] {
            out.extend(in_dir(names, Path::new(dir)));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| seen.insert(c.clone()));
    out
}

/// 5. pip wheels under the active Python's paths (asks Python: see [`python_site_dirs`]).
fn wheel_candidates(spec: &LibrarySpec) -> Vec<OsString> {
    let mut out = Vec::new();
    if spec.wheel_dirs.is_empty() {
        return out;
    }
    let names = ordered_names(spec);
    for site in python_site_dirs() {
        for w in spec.wheel_dirs {
            for c in in_dir(&names, &site.join(w)) {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    out
}

fn toolkit_subdirs() -> &'static [&'static str] {
    if cfg!(windows) {
        &["bin", "bin/x64"]
    } else {
        &["lib64", "lib", "targets/x86_64-linux/lib"]
    }
}

/// `site-packages` folders of the active Python: from `VIRTUAL_ENV`, `CONDA_PREFIX`,
/// `PYTHONPATH`, and `sys.path` of the first `python3` on `PATH` (asked once, only when the
/// earlier places all failed, since this is the last resort).
pub fn python_site_dirs() -> Vec<PathBuf> {
    static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    DIRS.get_or_init(|| {
        let mut dirs = Vec::new();
        if let Some(pp) = std::env::var_os("PYTHONPATH") {
            dirs.extend(std::env::split_paths(&pp));
        }
        for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
            if let Some(prefix) = std::env::var_os(var) {
                let lib = PathBuf::from(prefix).join("lib");
                if let Ok(rd) = std::fs::read_dir(&lib) {
                    for e in rd.flatten() {
                        if e.file_name().to_string_lossy().starts_with("python") {
                            dirs.push(e.path().join("site-packages"));
                        }
                    }
                }
            }
        }
        let python = if cfg!(windows) { "python" } else { "python3" };
        if let Ok(out) = std::process::Command::new(python)
            .args([
                "-c",
                "import sys, site\nfor p in sys.path + site.getsitepackages() + [site.getusersitepackages()]: print(p)",
            ])
            .stderr(std::process::Stdio::null())
            .output()
        {
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if line.ends_with("site-packages") || line.ends_with("dist-packages") {
                    dirs.push(PathBuf::from(line));
                }
            }
        }
        let mut seen = std::collections::HashSet::new();
        dirs.retain(|d| seen.insert(d.clone()));
        dirs
    })
    .clone()
}
