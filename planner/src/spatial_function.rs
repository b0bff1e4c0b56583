//! Names of the spatial functions (`point({...})`, `point.distance(a, b)`
//! and its older alias `distance(a, b)`, `point.withinBBox(p, ll, ur)`).
//! The executor implements them; the planner only resolves names and checks
//! argument counts.

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

impl SpatialFunction {
    /// Resolves a lower-cased function name.
    pub fn from_lower_name(name: &str) -> Option<SpatialFunction> {
        Some(match name {
            "point" => SpatialFunction::Point,
            "point.distance" | "distance" => SpatialFunction::Distance,
            "point.withinbbox" => SpatialFunction::WithinBBox,
            _ => return None,
        })
    }

    /// Allowed argument counts (inclusive).
    pub fn arity(self) -> (usize, usize) {
        match self {
            SpatialFunction::Point => (1, 1),
            SpatialFunction::Distance => (2, 2),
            SpatialFunction::WithinBBox => (3, 3),
        }
    }
}
