//! What `sass-diff` compares: `nvdisasm -hex` output split into one normalized listing per
//! function, the table of kernels renamed since older revisions, and the comparison itself.
//!
//! A function's listing is everything ptxas made for it: first its code (`.text.F`, each
//! instruction with its encoding, which carries the scheduling control bits the text does not
//! show), then its own sections (`.nv.info.F`, `.nv.constant0.F`, `.nv.constant2.F`, `.nv.shared.F`: attributes,
//! parameter bank, constants, shared memory) and the blocks of the common `.nv.info` that name it
//! (its register count and stack). What only encodes where things are in the whole cubin is
//! normalized away: offsets in a section (`/*0040*/`), the cubin-wide numbering of labels
//! (`.L_x_17`, renumbered per function), the function's own name (`<entry>`), and the encodings
//! of instructions that name another symbol (the linker fills those in).

use std::collections::{BTreeMap, HashMap};

/// The placeholder for a function's own name in its listing.
const ENTRY: &str = "<entry>";

/// The name a kernel of an older revision has now (itself, unless it was renamed). Types `t` are
/// u8, u16 or f32, `c` a channel count, `r` a radius:
///
/// - `conv_fast_4x2_<rest>` → `conv_blocked_4x2_<rest>`
/// - `conv_fast_[c<c>_]<t>_r<r>` → `conv_blocked_4x4_[c<c>_]<t>_r<r>`
/// - `conv_sep_fused_<rest>` → `conv_separable_fused_<rest>`; `conv_sep_rows_<t>`,
///   `conv_sep_cols_<t>` → `conv_separable_rows_<t>`, `conv_separable_cols_<t>`
/// - `conv_stream_[c<c>_]u8_r<r>` → `conv_warp_rows_[c<c>_]r<r>`
/// - `conv_tensor_c<c>_u8_r<r>` → `conv_tensor_u8_c<c>_r<r>` (`conv_tensor_u8_r<r>` stays)
/// - `conv_tensor_split_[c<c>_]f32_r<r>` → `conv_tensor_f32_[c<c>_]r<r>`
pub fn renamed(old: &str) -> String {
    rename(old).unwrap_or_else(|| old.to_string())
}

fn rename(old: &str) -> Option<String> {
    let rest = old.strip_prefix("conv_")?;
    if let Some(rest) = rest.strip_prefix("fast_4x2_") {
        return Some(format!("conv_blocked_4x2_{rest}"));
    }
    if let Some(rest) = rest.strip_prefix("fast_") {
        let (c, t, r) = shape(rest)?;
        return Some(format!("conv_blocked_4x4_{c}{t}_r{r}"));
    }
    if let Some(rest) = rest.strip_prefix("sep_fused_") {
        return Some(format!("conv_separable_fused_{rest}"));
    }
    for pass in ["rows", "cols"] {
        if let Some(t) = rest.strip_prefix(&format!("sep_{pass}_")) {
            return is_type(t).then(|| format!("conv_separable_{pass}_{t}"));
        }
    }
    if let Some(rest) = rest.strip_prefix("stream_") {
        let (c, t, r) = shape(rest)?;
        return (t == "u8").then(|| format!("conv_warp_rows_{c}r{r}"));
    }
    if let Some(rest) = rest.strip_prefix("tensor_split_") {
        let (c, t, r) = shape(rest)?;
        return (t == "f32").then(|| format!("conv_tensor_f32_{c}r{r}"));
    }
    if let Some(rest) = rest.strip_prefix("tensor_") {
        let (c, t, r) = shape(rest)?;
        return (t == "u8" && !c.is_empty()).then(|| format!("conv_tensor_u8_{c}r{r}"));
    }
    None
}

/// Splits `[c<c>_]<t>_r<r>` into (`"c<c>_"` or `""`, `t`, `r`).
fn shape(s: &str) -> Option<(&str, &str, &str)> {
    let (c, rest) = match s.split_once('_') {
        Some((c, rest)) if matches!(c, "c3" | "c4") => (&s[..c.len() + 1], rest),
        _ => ("", s),
    };
    let (t, r) = rest.split_once("_r")?;
    (is_type(t) && !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit())).then_some((c, t, r))
}

fn is_type(t: &str) -> bool {
    matches!(t, "u8" | "u16" | "f32")
}

/// `nvdisasm -hex` output, read line by line: its sections, with whitespace runs collapsed and
/// each encoding's second line joined to its instruction.
#[derive(Default)]
pub struct Disassembly {
    sections: Vec<(String, Vec<String>)>,
}

impl Disassembly {
    /// Takes the next line of the output.
    pub fn push(&mut self, line: &str) {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(rest) = line.strip_prefix("//--------------------- ") {
            let name = rest.split(' ').next().unwrap_or_default();
            self.sections.push((name.to_string(), Vec::new()));
            return;
        }
        let Some((_, lines)) = self.sections.last_mut() else {
            return; // the file's header
        };
        let encoding_only = line.starts_with("/* 0x") && line.ends_with("*/");
        match lines.last_mut() {
            Some(last) if encoding_only => {
                last.push(' ');
                last.push_str(&line);
            }
            _ if line.is_empty() => {}
            _ => lines.push(line),
        }
    }

    /// One normalized listing per function (per `.text.F` section).
    pub fn functions(&self) -> BTreeMap<String, Vec<String>> {
        let names: Vec<&str> = self
            .sections
            .iter()
            .filter_map(|(s, _)| s.strip_prefix(".text."))
            .collect();
        // Per function: its code, then the rest in the disassembly's order.
        let mut parts: BTreeMap<&str, [Vec<&str>; 2]> =
            names.iter().map(|&n| (n, [Vec::new(), Vec::new()])).collect();
        for (section, lines) in &self.sections {
            if section == ".nv.info" {
                // Blocks, one per attribute; those of one function name it as `index@(F)`.
                for block in lines.split_inclusive(|l| l.starts_with("//----- nvinfo")) {
                    let owner = block.iter().find_map(|l| {
                        let name = l.split("index@(").nth(1)?.split(')').next()?;
                        parts.contains_key(name).then_some(name)
                    });
                    // Without the labels it defines: its first line may end the block before.
                    if let Some(part) = owner.and_then(|name| parts.get_mut(name)) {
                        let label = |l: &&String| l.starts_with(".L_") && l.ends_with(':');
                        part[1].extend(block.iter().filter(|l| !label(l)).map(String::as_str));
                    }
                }
            } else if let Some(part) = section
                .rsplit_once('.')
                .and_then(|(kind, name)| (!kind.is_empty()).then_some(name))
                .and_then(|name| parts.get_mut(name))
            {
                let part = &mut part[usize::from(!section.starts_with(".text."))];
                part.push(section);
                part.extend(lines.iter().map(String::as_str));
            }
        }
        parts
            .into_iter()
            .map(|(name, lines)| (name.to_string(), normalize(name, &lines.concat())))
            .collect()
    }
}

/// Function `name`'s lines, normalized (see the module's documentation).
fn normalize(name: &str, lines: &[&str]) -> Vec<String> {
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    for line in lines {
        let mut line = *line;
        if line.starts_with("//") {
            continue;
        }
        if let Some(rest) = line.strip_prefix("/*")
            && let Some((offset, rest)) = rest.split_once("*/")
            && offset.bytes().all(|b| b.is_ascii_hexdigit())
        {
            line = rest.trim_start();
        }
        let (text, encoding) = match line.find(" /* 0x") {
            Some(i) => (&line[..i], &line[i..]),
            None => (line, ""),
        };
        let mut normal = String::with_capacity(line.len());
        let mut word = String::new();
        for ch in text.chars().chain(std::iter::once('\n')) {
            if ch.is_ascii_alphanumeric() || matches!(ch, '_' | '$' | '.') {
                word.push(ch);
                continue;
            }
            if word == name {
                normal.push_str(ENTRY);
            } else if let Some(kind) = word.strip_suffix(name).filter(|k| k.ends_with('.')) {
                normal.push_str(kind);
                normal.push_str(ENTRY);
            } else if word.starts_with(".L_") {
                let next = labels.len();
                let n = *labels.entry(std::mem::take(&mut word)).or_insert(next);
                normal.push_str(&format!(".L{n}"));
            } else {
                normal.push_str(&word);
            }
            word.clear();
            if ch != '\n' {
                normal.push(ch);
            }
        }
        if !names_a_symbol(text) {
            normal.push_str(encoding);
        }
        out.push(normal);
    }
    out
}

/// Whether an instruction names a symbol other than a label: `` `(callee) `` or `32@lo(global)`,
/// whose encoding holds an address the linker chose.
fn names_a_symbol(text: &str) -> bool {
    let call = text.split("`(").skip(1).any(|rest| !rest.starts_with(".L_"));
    let relocation = text.match_indices('@').any(|(i, _)| {
        let rest = &text[i + 1..];
        let word = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
        rest[word..].starts_with('(')
    });
    call || relocation
}

/// How the functions of two disassemblies compare: an old function is paired with the new one of
/// the same name, else with the one it was [`renamed`] to.
#[derive(Debug, Default, PartialEq)]
pub struct Comparison {
    /// Pairs compared (same name, or old name renamed to new).
    pub compared: usize,
    /// Pairs whose old name differs from the new one.
    pub renamed: usize,
    /// (old name, new name, first differing line of the listings, 1-based).
    pub differ: Vec<(String, String, usize)>,
    /// Old functions with neither their name nor their new name in the new disassembly.
    pub only_old: Vec<String>,
    /// New functions that no old function is renamed to.
    pub only_new: Vec<String>,
}

impl Comparison {
    /// How many entry points differ, counting those without a counterpart.
    pub fn differing(&self) -> usize {
        self.differ.len() + self.only_old.len() + self.only_new.len()
    }
}

pub fn compare(old: &BTreeMap<String, Vec<String>>, new: &BTreeMap<String, Vec<String>>) -> Comparison {
    let mut c = Comparison::default();
    let mut matched = std::collections::BTreeSet::new();
    for (old_name, old_lines) in old {
        // The same name if the new side has it (a revision from before a rename, or both after).
        let new_name = if new.contains_key(old_name) {
            old_name.clone()
        } else {
            renamed(old_name)
        };
        let Some(new_lines) = new.get(&new_name) else {
            c.only_old.push(old_name.clone());
            continue;
        };
        c.compared += 1;
        c.renamed += usize::from(new_name != *old_name);
        if old_lines != new_lines {
            let line = old_lines
                .iter()
                .zip(new_lines)
                .position(|(a, b)| a != b)
                .unwrap_or(old_lines.len().min(new_lines.len()));
            c.differ.push((old_name.clone(), new_name.clone(), line + 1));
        }
        matched.insert(new_name);
    }
    c.only_new = new.keys().filter(|n| !matched.contains(*n)).cloned().collect();
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_each_family() {
        let cases = [
            ("conv_fast_u8_r3", "conv_blocked_4x4_u8_r3"),
            ("conv_fast_f32_r15", "conv_blocked_4x4_f32_r15"),
            ("conv_fast_c3_u16_r1", "conv_blocked_4x4_c3_u16_r1"),
            ("conv_fast_4x2_u8_r4", "conv_blocked_4x2_u8_r4"),
            ("conv_fast_4x2_c4_f32_r1", "conv_blocked_4x2_c4_f32_r1"),
            ("conv_sep_fused_u16_r7", "conv_separable_fused_u16_r7"),
            ("conv_sep_rows_f32", "conv_separable_rows_f32"),
            ("conv_sep_cols_u8", "conv_separable_cols_u8"),
            ("conv_stream_u8_r2", "conv_warp_rows_r2"),
            ("conv_stream_c4_u8_r1", "conv_warp_rows_c4_r1"),
            ("conv_tensor_c3_u8_r4", "conv_tensor_u8_c3_r4"),
            ("conv_tensor_u8_r4", "conv_tensor_u8_r4"),
            ("conv_tensor_split_f32_r12", "conv_tensor_f32_r12"),
            ("conv_tensor_split_c4_f32_r0", "conv_tensor_f32_c4_r0"),
            // Everything else keeps its name, including what only looks like a renamed family.
            ("conv_naive_u8", "conv_naive_u8"),
            ("conv_tiled_cache_f32", "conv_tiled_cache_f32"),
            ("gpu_spin", "gpu_spin"),
            ("conv_fast_i32_r1", "conv_fast_i32_r1"),
            ("conv_fast_c5_u8_r1", "conv_fast_c5_u8_r1"),
            ("conv_sep_rows_i8", "conv_sep_rows_i8"),
            ("conv_stream_f32_r1", "conv_stream_f32_r1"),
            ("conv_blocked_4x4_u8_r1", "conv_blocked_4x4_u8_r1"),
        ];
        for (old, new) in cases {
            assert_eq!(renamed(old), new, "{old}");
        }
    }

    /// A cut-down `nvdisasm -hex` output of two kernels.
    fn disassembly(kernel: &str, other: &str, label: usize, constant: &str) -> Disassembly {
        let text = format!(
            "\t.elftype\t@\"ET_EXEC\"
//--------------------- .nv.info                  --------------------------
\t.section\t.nv.info,\"\",@\"SHT_CUDA_INFO\"
\t//----- nvinfo : EIATTR_REGCOUNT
        /*0000*/ \t.byte\t0x04, 0x2f
        /*0002*/ \t.short\t(.L_{l1} - .L_{l0})
.L_{l0}:
        /*0004*/ \t.word\tindex@({other})
        /*0008*/ \t.word\t0x00000010
\t//----- nvinfo : EIATTR_REGCOUNT
.L_{l1}:
        /*000c*/ \t.byte\t0x04, 0x2f
        /*000e*/ \t.short\t(.L_{l3} - .L_{l2})
.L_{l2}:
        /*0010*/ \t.word\tindex@({kernel})
        /*0014*/ \t.word\t0x00000020
//--------------------- .nv.constant2.{kernel} --------------------------
\t.section\t.nv.constant2.{kernel},\"a\",@progbits
.nv.constant2.{kernel}:
        /*0000*/ \t.byte\t{constant}, 0x04, 0x00, 0x00
//--------------------- .text.{other}      --------------------------
        /*0000*/                   EXIT ;    /* 0x000000000000794d */
                                             /* 0x000fea0003800000 */
//--------------------- .text.{kernel}      --------------------------
\t.section\t.text.{kernel},\"ax\",@progbits
        .size           {kernel},(.L_x_{l4} - {kernel})
{kernel}:
        /*0000*/              @!P0 BRA `(.L_x_{l5}) ;    /* 0x0000000000008947 */
                                                       /* 0x000fea0003800000 */
        /*0010*/                   CALL.REL.NOINC `({other}) ;    /* 0x0000001000007944 */
                                                       /* 0x000fea0003c00000 */
.L_x_{l5}:
        /*0020*/                   EXIT ;    /* 0x000000000000794d */
                                             /* 0x000fea0003800000 */
.L_x_{l4}:
",
            l0 = label,
            l1 = label + 1,
            l2 = label + 2,
            l3 = label + 3,
            l4 = label + 40,
            l5 = label + 41,
        );
        let mut d = Disassembly::default();
        for line in text.lines() {
            d.push(line);
        }
        d
    }

    #[test]
    fn normalizes_names_labels_offsets_and_symbol_encodings() {
        let old = disassembly("conv_fast_u8_r1", "gpu_spin", 7, "0x20").functions();
        let listing = &old["conv_fast_u8_r1"];
        let expected = [
            ".text.<entry>",
            ".section .text.<entry>,\"ax\",@progbits",
            ".size <entry>,(.L0 - <entry>)",
            "<entry>:",
            "@!P0 BRA `(.L1) ; /* 0x0000000000008947 */ /* 0x000fea0003800000 */",
            "CALL.REL.NOINC `(gpu_spin) ;",
            ".L1:",
            "EXIT ; /* 0x000000000000794d */ /* 0x000fea0003800000 */",
            ".L0:",
            ".byte 0x04, 0x2f",
            ".short (.L2 - .L3)",
            ".word index@(<entry>)",
            ".word 0x00000020",
            ".nv.constant2.<entry>",
            ".section .nv.constant2.<entry>,\"a\",@progbits",
            ".nv.constant2.<entry>:",
            ".byte 0x20, 0x04, 0x00, 0x00",
        ];
        assert_eq!(listing, &expected);
        assert_eq!(old["gpu_spin"].len(), 6);

        // The same kernel renamed, in a cubin whose labels are numbered differently: no change.
        let new = disassembly("conv_blocked_4x4_u8_r1", "gpu_spin", 300, "0x20").functions();
        let same = compare(&old, &new);
        assert_eq!((same.compared, same.renamed, same.differing()), (2, 1, 0));
        // Or not renamed yet: paired with itself.
        let same = compare(&old, &old);
        assert_eq!((same.compared, same.renamed, same.differing()), (2, 0, 0));

        // A changed constant differs; a kernel without its new name is missing on both sides.
        let changed = disassembly("conv_blocked_4x4_u8_r1", "gpu_spin", 7, "0x21").functions();
        let c = compare(&old, &changed);
        let first = (".byte 0x20, 0x04, 0x00, 0x00", ".byte 0x21, 0x04, 0x00, 0x00");
        let line = c.differ[0].2;
        assert_eq!(
            (
                old["conv_fast_u8_r1"][line - 1].as_str(),
                changed["conv_blocked_4x4_u8_r1"][line - 1].as_str()
            ),
            first
        );
        assert_eq!(c.differing(), 1);
        let missing = compare(
            &old,
            &disassembly("conv_other", "gpu_spin", 7, "0x20").functions(),
        );
        assert_eq!(missing.only_old, ["conv_fast_u8_r1"]);
        assert_eq!(missing.only_new, ["conv_other"]);
        assert_eq!((missing.compared, missing.differing()), (1, 2));
    }
}
