//! Enums chosen by name (on command lines, in files): their names, aliases and parsing.

/// An enum whose values go by fixed lowercase names, e.g. [`crate::Border`] (`zero`, `reflect`, ...).
pub trait Named: Copy + Sized + 'static {
    /// What a value is, for messages: `border`, `filter`.
    const WHAT: &'static str;
    /// Every value, in the order they are listed to users.
    const VALUES: &'static [Self];

    /// The value's name.
    fn name(self) -> &'static str;

    /// Other names the value is also accepted under.
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }
}

/// A name that is none of a [`Named`] type's names or aliases.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{name}' (one of: {})", names.join(", "))]
pub struct UnknownName {
    pub(crate) what: &'static str,
    pub(crate) name: String,
    pub(crate) names: Vec<&'static str>,
}

/// The value named `s` (by its name or an alias).
pub fn parse<T: Named>(s: &str) -> Result<T, UnknownName> {
    T::VALUES
        .iter()
        .copied()
        .find(|v| v.name() == s || v.aliases().contains(&s))
        .ok_or_else(|| UnknownName {
            what: T::WHAT,
            name: s.to_string(),
            names: T::VALUES.iter().map(|v| v.name()).collect(),
        })
}

/// Implements [`std::str::FromStr`] for a [`Named`] type through [`parse`].
macro_rules! impl_from_str {
    ($t:ty) => {
        impl std::str::FromStr for $t {
            type Err = $crate::named::UnknownName;

            fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
                $crate::named::parse(s)
            }
        }
    };
}
pub(crate) use impl_from_str;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Border;
    use crate::model::filter::FilterKind;

    #[test]
    fn names_and_aliases_parse_back() {
        for &b in Border::VALUES {
            assert_eq!(Named::name(b).parse::<Border>(), Ok(b));
        }
        assert_eq!("average".parse::<FilterKind>(), Ok(FilterKind::Box));
        assert_eq!("sobel-x".parse::<FilterKind>(), Ok(FilterKind::SobelX));
        let e = "mirror".parse::<Border>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown border 'mirror' (one of: zero, replicate, reflect, symmetric, wrap, constant, valid)"
        );
    }
}
