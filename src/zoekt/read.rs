//! How the wire types read an answer of Zoekt: each object's keys the pager reads go into
//! their fields, every other key is skipped, and what a skipped key holds may nest only so
//! deep.
//!
//! serde's derived readers skip an unread key's value through serde_json's `ignore_value`,
//! which has no depth limit: junk nested 100,000 arrays deep beside counts of 0 would read
//! as a clean, empty answer. A scan of every byte for nesting before decoding closed that,
//! but it cost a quarter of the decoding time of a large answer (one more pass over
//! hundreds of kilobytes). Here the skip itself counts the nesting ([`Skip`]), and the keys
//! that are read are bounded by their types. Both read through serde_json's
//! `deserialize_any` and typed readers, which stop at its own recursion limit (128) too.
//!
//! Reading the keys through one `match` on the key as written (borrowed, not copied) also
//! made decoding a large answer about twice as fast as serde's derived readers with that
//! scan: 1.0 against 1.9 ms for the three answers to `e` over the split fixture corpus
//! (350 KB).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// How deep a value the pager does not read may nest (arrays and objects inside it). The
/// deepest such values Zoekt sends nest four levels: a repository's `SubRepoMap` (and the
/// list answer's `ReposMap` and `Minimal`) holds repositories, which hold lists of branches.
pub const SKIP_DEPTH: u32 = 16;

/// A value skipped, nested at most `.0` levels deep: the reader of a key the pager does not
/// read.
#[derive(Debug, Clone, Copy)]
pub struct Skip(pub u32);

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

// Only what serde_json's `deserialize_any` calls: `null` is a unit, every string a `str`
// (borrowed or not), and bytes and options never come from it.
impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = self.deeper()?;
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let inner = self.deeper()?;
        while map.next_key::<de::IgnoredAny>()?.is_some() {
            map.next_value_seed(inner)?;
        }
        Ok(())
    }
}

impl Skip {
    /// The reader of what an array or object being skipped holds, or the error when that is
    /// one level too deep.
    fn deeper<E: de::Error>(self) -> Result<Skip, E> {
        match self.0.checked_sub(1) {
            Some(left) => Ok(Skip(left)),
            None => Err(E::custom(format_args!(
                "a key the pager does not read nests more than {SKIP_DEPTH} levels deep"
            ))),
        }
    }
}

/// An object's key, borrowed from the answer when it has no escapes (the usual case), so
/// matching it allocates nothing. serde_json hands every key over as a `str`, also from a
/// body that is not UTF-8 (a key that is not UTF-8 fails there).
#[derive(Debug)]
pub struct Key<'de>(pub Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Where `key` is in `keys` (a const fn, so each key's bit is known when compiled).
pub const fn position(keys: &[&str], key: &str) -> usize {
    let mut i = 0;
    while i < keys.len() {
        let (a, b) = (keys[i].as_bytes(), key.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("key not listed")
}

/// Implements `Deserialize` for a wire struct from its keys: each listed key is read into its
/// field (`list` fields read Go's `null` as empty), every other key is [`Skip`]ped, a listed
/// key given twice is refused (as serde's derived readers do), and the struct starts from its
/// `Default` so keys left out keep their zero value, but for the `required` ones, whose
/// absence is refused. Every field of the struct must be listed (checked when compiled).
///
/// A skipped value is still read in full by serde_json: a number out of range, a lone
/// surrogate or (in a body that is not UTF-8) bytes that are not UTF-8 fail the answer there
/// as they would in a key that is read. Go's encoder writes none of them.
macro_rules! read_object {
    (
        $ty:ident { $($key:literal => $field:ident $(: $list:ident)?),* $(,)? }
        $(required: [$($required:literal),* $(,)?])?
    ) => {
        impl<'de> ::serde::Deserialize<'de> for $ty {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const KEYS: &[&str] = &[$($key),*];
                struct ObjectVisitor;
                impl<'de> ::serde::de::Visitor<'de> for ObjectVisitor {
                    type Value = $ty;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(concat!("Zoekt's ", stringify!($ty), " object"))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> Result<$ty, A::Error> {
                        let mut out = $ty::default();
                        let mut seen = 0u64;
                        while let Some(key) = map.next_key::<$crate::zoekt::read::Key<'de>>()? {
                            match key.0.as_ref() {
                                $($key => {
                                    const BIT: u64 = 1 << $crate::zoekt::read::position(KEYS, $key);
                                    if seen & BIT != 0 {
                                        return Err(::serde::de::Error::duplicate_field($key));
                                    }
                                    seen |= BIT;
                                    read_object!(@read map, out.$field $(, $list)?);
                                })*
                                _ => map.next_value_seed($crate::zoekt::read::Skip(
                                    $crate::zoekt::read::SKIP_DEPTH,
                                ))?,
                            }
                        }
                        $($(
                            if seen & const { 1 << $crate::zoekt::read::position(KEYS, $required) }
                                == 0
                            {
                                return Err(::serde::de::Error::missing_field($required));
                            }
                        )*)?
                        // Every field is listed (a field added to the struct but not here
                        // would otherwise stay at its zero value without a word).
                        let $ty { $($field: _),* } = &out;
                        Ok(out)
                    }
                }
                d.deserialize_map(ObjectVisitor)
            }
        }
    };
    (@read $map:ident, $place:expr) => {
        $place = $map.next_value()?
    };
    (@read $map:ident, $place:expr, list) => {
        $place = $map.next_value::<Option<_>>()?.unwrap_or_default()
    };
}

pub(crate) use read_object;

#[cfg(test)]
mod tests {
    use super::*;

    /// Skips `json` as an unread key's value, `depth` levels allowed.
    fn skip(json: &str, depth: u32) -> Result<(), serde_json::Error> {
        let mut d = serde_json::Deserializer::from_str(json);
        Skip(depth).deserialize(&mut d)?;
        d.end()
    }

    #[test]
    fn a_skipped_value_may_nest_only_so_deep() {
        assert!(skip("1", 0).is_ok());
        assert!(
            skip(r#""[[[[""#, 0).is_ok(),
            "brackets inside a string do not nest"
        );
        assert!(skip("[[1]]", 2).is_ok());
        assert!(skip("[[1]]", 1).is_err());
        assert!(skip(r#"{"a":{"b":[1,2.5,null,true,"x"]}}"#, 3).is_ok());
        assert!(skip(r#"{"a":{"b":[1]}}"#, 2).is_err());
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = skip(&deep, SKIP_DEPTH).unwrap_err().to_string();
        assert!(err.contains("nests more than 16 levels deep"), "{err}");
    }

    #[test]
    fn keys_are_found_by_position() {
        assert_eq!(position(&["A", "Bb", "B"], "B"), 2);
        assert_eq!(position(&["A", "Bb", "B"], "Bb"), 1);
    }
}
