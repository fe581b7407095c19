//! The conversions between the backend seam's types and their forms in a recording, written
//! once: `mirror!(Seam <=> Kept { field, list: each, maybe: maybe, nested: into })` makes
//! `From` both ways, by value and by reference.
//!
//! Each conversion destructures every field it names and builds the other side from exactly
//! those, with no `..`: a field added to either side fails to compile until the mirror names
//! it (see [`super::calls`] for why a recording must never drop one without a word).
//!
//! How a field crosses: bare, as it is (strings, numbers, lists of strings); `each`, a list
//! whose elements are mirrors themselves; `maybe`, an `Option` of a mirror; `into`, one
//! mirror.

/// `From` both ways between a seam type and its recording form; see the module's comment.
macro_rules! mirror {
    ($seam:ident <=> $kept:ident { $($field:ident $(: $how:ident)?),* $(,)? }) => {
        $crate::harness::mirror::mirror!(@one $seam => $kept { $($field $(: $how)?),* });
        $crate::harness::mirror::mirror!(@one $kept => $seam { $($field $(: $how)?),* });
    };
    (@one $from:ident => $to:ident { $($field:ident $(: $how:ident)?),* }) => {
        impl From<$from> for $to {
            fn from(value: $from) -> Self {
                let $from { $($field),* } = value;
                $to { $($field: $crate::harness::mirror::carry!($($how)? $field)),* }
            }
        }

        impl From<&$from> for $to {
            fn from(value: &$from) -> Self {
                Self::from(value.clone())
            }
        }
    };
}

/// One field across a [`mirror!`], by how it is marked.
macro_rules! carry {
    ($value:ident) => {
        $value
    };
    (each $value:ident) => {
        $value.into_iter().map(Into::into).collect()
    };
    (maybe $value:ident) => {
        $value.map(Into::into)
    };
    (into $value:ident) => {
        $value.into()
    };
}

pub(super) use {carry, mirror};
