//! `#[derive(DeviceRepr)]` for `#[repr(C)]` structs passed to CUDA kernels by value.
//!
//! Use it through `cuprite-driver`, which re-exports it as `cuprite_driver::DeviceRepr` (the
//! macro shares the trait's name). It emits `unsafe impl cuprite_driver::DeviceRepr` for the
//! struct, and refuses, at compile time:
//!
//! - a struct without `#[repr(C)]` (or `#[repr(transparent)]`): Rust's default layout is
//!   unspecified, so the kernel would read fields at the wrong offsets;
//! - a struct with a field whose type is not itself `DeviceRepr` (a `Vec`, a reference, a
//!   `String`...): such a field has no meaning on the device;
//! - enums and unions.
//!
//! Where `cuprite-driver` is a dependency under another name, say so with
//! `#[cuprite(crate = "that_name")]` on the struct.
#![deny(missing_docs)]

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Error, Fields, parse_macro_input};

/// Implements `cuprite_driver::DeviceRepr` for a `#[repr(C)]` struct whose fields are all
/// `DeviceRepr`. See the crate documentation for what it refuses.
///
/// The impl names the trait through `::cuprite_driver`. Under a renamed dependency
/// (`gpu = { package = "cuprite-driver", .. }`), or through a crate that re-exports the driver,
/// name the path with `#[cuprite(crate = "gpu")]` on the struct.
#[proc_macro_derive(DeviceRepr, attributes(cuprite))]
pub fn derive_device_repr(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// The path of the driver crate: `#[cuprite(crate = "...")]` when given, else `::cuprite_driver`.
fn crate_path(input: &DeriveInput) -> syn::Result<syn::Path> {
    let mut path: Option<syn::Path> = None;
    for attr in &input.attrs {
        if !attr.path().is_ident("cuprite") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let lit: syn::LitStr = meta.value()?.parse()?;
                if path.is_some() {
                    return Err(meta.error("`crate` is given twice"));
                }
                path = Some(lit.parse()?);
                Ok(())
            } else {
                Err(meta.error("unknown `cuprite` option: the only one is `crate = \"path\"`"))
            }
        })?;
    }
    Ok(path.unwrap_or_else(|| syn::parse_quote!(::cuprite_driver)))
}

fn has_c_layout(input: &DeriveInput) -> syn::Result<bool> {
    let mut ok = false;
    for attr in &input.attrs {
        if !attr.path().is_ident("repr") {
            continue;
        }
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") || meta.path.is_ident("transparent") {
                ok = true;
            }
            // `align(N)` / `packed(N)` carry a parenthesised argument: consume it.
            if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _: proc_macro2::TokenStream = content.parse()?;
            }
            Ok(())
        })?;
    }
    Ok(ok)
}

fn expand(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    let name = &input.ident;
    let krate = crate_path(input)?;
    let fields = match &input.data {
        Data::Struct(s) => &s.fields,
        Data::Enum(e) => {
            return Err(Error::new(
                e.enum_token.span(),
                "DeviceRepr can only be derived for #[repr(C)] structs, not enums",
            ));
        }
        Data::Union(u) => {
            return Err(Error::new(
                u.union_token.span(),
                "DeviceRepr can only be derived for #[repr(C)] structs, not unions",
            ));
        }
    };
    if !has_c_layout(input)? {
        return Err(Error::new(
            name.span(),
            format!(
                "DeviceRepr requires `#[repr(C)]` on `{name}`: Rust's default struct layout is \
                 unspecified, so a CUDA kernel would read its fields at the wrong offsets"
            ),
        ));
    }

    let field_types: Vec<&syn::Type> = match fields {
        Fields::Named(f) => f.named.iter().map(|f| &f.ty).collect(),
        Fields::Unnamed(f) => f.unnamed.iter().map(|f| &f.ty).collect(),
        Fields::Unit => Vec::new(),
    };

    // Every type parameter must itself be DeviceRepr for the impl to hold.
    let mut generics = input.generics.clone();
    for p in generics.type_params_mut() {
        p.bounds.push(syn::parse_quote!(#krate::DeviceRepr));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();

    // One assertion per field, spanned on the field type so the error points at it.
    let checks = field_types.iter().map(|ty| {
        quote_spanned! {ty.span()=>
            __cuprite_assert_field_is_device_repr::<#ty>();
        }
    });
    let check_fn = syn::Ident::new("__cuprite_check_fields", Span::call_site());

    Ok(quote! {
        // SAFETY: the struct is `#[repr(C)]` (checked by the derive) and every field is
        // `DeviceRepr` (checked by the function below, which fails to compile otherwise), so
        // its bytes are a valid C struct of device-representable fields.
        unsafe impl #impl_generics #krate::DeviceRepr for #name #ty_generics #where_clause {}

        const _: () = {
            fn __cuprite_assert_field_is_device_repr<T: #krate::DeviceRepr>() {}
            #[allow(dead_code)]
            fn #check_fn #impl_generics () #where_clause {
                #(#checks)*
            }
        };
    })
}
