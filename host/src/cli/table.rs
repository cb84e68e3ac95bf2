//! Plain-text tables: the first column left-aligned, the others right-aligned, a dashed rule
//! under the headers.

/// Prints `rows` under `headers`, every column as wide as its widest cell.
pub fn print(headers: &[&str], rows: &[Vec<String>]) {
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .chain([headers[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        println!("{}", parts.join("  "));
    };
    line(headers.to_vec());
    let dashes: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    line(dashes.iter().map(String::as_str).collect());
    for r in rows {
        line(r.iter().map(String::as_str).collect());
    }
}
