//! The spatial functions (`point({...})`, `point.distance(a, b)` and its
//! older alias `distance(a, b)`, `point.withinBBox(p, ll, ur)`): what each
//! name resolves to. The executor implements them; their names and argument
//! counts are in the catalogue.

/// A spatial function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpatialFunction {
    /// `point(map)`: a point from its coordinates and CRS.
    Point,
    /// `point.distance(a, b)` / `distance(a, b)`.
    Distance,
    /// `point.withinBBox(p, lowerLeft, upperRight)`.
    WithinBBox,
}
