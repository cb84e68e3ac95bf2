//! `ptxas -v`'s report of each function's resources, and the register spills it may show
//! ([`ALLOWED_SPILLS`], checked by [`check_spills`]).

/// ptxas's figures for one function of the PTX: a kernel (an entry) or a device function that
/// was not inlined.
#[derive(Debug, Default, PartialEq)]
pub struct Resources {
    pub name: String,
    /// Whether the function is an entry (a kernel).
    pub entry: bool,
    pub registers: u32,
    pub shared: u32,
    pub stack: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

impl Resources {
    pub fn spills(&self) -> bool {
        self.spill_stores + self.spill_loads > 0
    }
}

/// Parses `ptxas -v` output into one item per function, in the order ptxas first names them.
/// ptxas reports function by function: `Compiling entry function 'NAME'` and `Function
/// properties for NAME` start NAME's block, and the `bytes stack frame, ... spill stores, ...
/// spill loads` and `Used N registers` lines after them, up to the next block, are NAME's. A
/// device function that was not inlined has a block of its own (a properties line, no entry
/// line) after each entry that calls it: its figures are the largest of its blocks.
pub fn parse(log: &str) -> Vec<Resources> {
    let number_before = |line: &str, unit: &str| -> Option<u32> {
        let end = line.find(unit)?;
        line[..end].split_whitespace().last()?.parse().ok()
    };
    let mut functions: Vec<Resources> = Vec::new();
    // The function whose block the lines belong to.
    let mut current: Option<usize> = None;
    let block = |functions: &mut Vec<Resources>, name: &str| -> usize {
        match functions.iter().position(|f| f.name == name) {
            Some(i) => i,
            None => {
                functions.push(Resources {
                    name: name.to_string(),
                    ..Default::default()
                });
                functions.len() - 1
            }
        }
    };
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let i = block(&mut functions, rest.split('\'').next().unwrap_or_default());
            functions[i].entry = true;
            current = Some(i);
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(block(&mut functions, rest.trim()));
        } else if let Some(f) = current.map(|i| &mut functions[i]) {
            // A device function has a block after each entry that calls it: the largest counts.
            let take = |field: &mut u32, unit: &str| {
                *field = (*field).max(number_before(line, unit).unwrap_or(0));
            };
            if line.contains("bytes stack frame") {
                take(&mut f.stack, "bytes stack frame");
                take(&mut f.spill_stores, "bytes spill stores");
                take(&mut f.spill_loads, "bytes spill loads");
            } else if line.contains("Used") && line.contains("registers") {
                take(&mut f.registers, "registers");
                take(&mut f.shared, "bytes smem");
            }
        }
    }
    functions
}

/// Where [`ALLOWED_SPILLS`] comes from, for messages.
pub const ALLOWED_SPILLS_FILE: &str = "xtask/src/allowed_spills.txt";

/// The functions allowed to spill, one a line: name, spill stores, spill loads (bytes, as ptxas
/// reports them for `sm_90`); `#` starts a comment.
pub const ALLOWED_SPILLS: &str = include_str!("allowed_spills.txt");

/// One line of [`ALLOWED_SPILLS`]: a function, and the most bytes it may spill each way.
#[derive(Clone, Debug, PartialEq)]
pub struct Allowed {
    pub name: String,
    pub stores: u32,
    pub loads: u32,
}

/// Parses an allow-list in [`ALLOWED_SPILLS`]'s format.
pub fn parse_allowed(text: &str) -> Result<Vec<Allowed>, String> {
    let mut allowed: Vec<Allowed> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let bad = || {
            format!(
                "{ALLOWED_SPILLS_FILE}:{}: expected `NAME STORES LOADS`: {line}",
                n + 1
            )
        };
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, stores, loads] = fields[..] else {
            return Err(bad());
        };
        let (Ok(stores), Ok(loads)) = (stores.parse(), loads.parse()) else {
            return Err(bad());
        };
        if allowed.iter().any(|a| a.name == name) {
            return Err(format!("{ALLOWED_SPILLS_FILE}:{}: {name} is listed twice", n + 1));
        }
        allowed.push(Allowed {
            name: name.to_string(),
            stores,
            loads,
        });
    }
    Ok(allowed)
}

/// What ptxas's `report` breaks of the allow-list: one line for each function that spills and is
/// not listed, spills more than listed, or is listed and not in the report at all; empty when
/// every spill is allowed.
pub fn check_spills(report: &[Resources], allowed: &[Allowed]) -> Vec<String> {
    let mut errors = Vec::new();
    for f in report.iter().filter(|f| f.spills()) {
        let kind = if f.entry { "entry" } else { "function" };
        let spill = format!(
            "{} bytes of spill stores and {} of spill loads",
            f.spill_stores, f.spill_loads
        );
        match allowed.iter().find(|a| a.name == f.name) {
            None => errors.push(format!(
                "register spills in {kind} {}: {spill}, and it is not in {ALLOWED_SPILLS_FILE}",
                f.name
            )),
            Some(a) if f.spill_stores > a.stores || f.spill_loads > a.loads => errors.push(format!(
                "register spills in {kind} {}: {spill}, more than the {}/{} allowed in \
                     {ALLOWED_SPILLS_FILE}",
                f.name, a.stores, a.loads
            )),
            Some(_) => {}
        }
    }
    for a in allowed {
        if !report.iter().any(|f| f.name == a.name) {
            errors.push(format!(
                "{ALLOWED_SPILLS_FILE} allows {} to spill, but ptxas reported no such function \
                 (remove the line)",
                a.name
            ));
        }
    }
    errors
}

/// The functions of the allow-list that now spill less than listed: `NAME: listed → now` each.
pub fn spilling_less(report: &[Resources], allowed: &[Allowed]) -> Vec<String> {
    allowed
        .iter()
        .filter_map(|a| {
            let f = report.iter().find(|f| f.name == a.name)?;
            (f.spill_stores < a.stores || f.spill_loads < a.loads).then(|| {
                format!(
                    "{}: {}/{} listed, {}/{} now",
                    a.name, a.stores, a.loads, f.spill_stores, f.spill_loads
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
