//! Spatial values: two- and three-dimensional points in one of the four
//! coordinate reference systems Neo4j supports, and the geometry Cypher
//! defines on them (distance, bounding-box tests).
//!
//! Invariants: a [`Point`] always has a known [`Crs`], and `z` is `Some`
//! exactly when the CRS is three-dimensional. For the geographic systems `x`
//! is the longitude and `y` the latitude (degrees), `z` the height (metres).

use std::fmt;

/// Earth radius in metres that Neo4j uses for geographic distances; using
/// the same constant makes `point.distance` agree with Neo4j to the metre.
pub const EARTH_RADIUS_METERS: f64 = 6_378_140.0;

/// A coordinate reference system, identified on the wire by its EPSG srid.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Crs {
    /// srid 7203, `'cartesian'`.
    Cartesian,
    /// srid 9157, `'cartesian-3d'`.
    Cartesian3D,
    /// srid 4326, `'wgs-84'`.
    Wgs84,
    /// srid 4979, `'wgs-84-3d'`.
    Wgs84_3D,
}

impl Crs {
    pub const ALL: [Crs; 4] = [Crs::Cartesian, Crs::Cartesian3D, Crs::Wgs84, Crs::Wgs84_3D];

    pub fn srid(self) -> i64 {
        match self {
            Crs::Cartesian => 7203,
            Crs::Cartesian3D => 9157,
            Crs::Wgs84 => 4326,
            Crs::Wgs84_3D => 4979,
        }
    }

    /// The name Cypher uses (`point.crs`, the `crs` key of `point({...})`).
    pub fn name(self) -> &'static str {
        match self {
            Crs::Cartesian => "cartesian",
            Crs::Cartesian3D => "cartesian-3d",
            Crs::Wgs84 => "wgs-84",
            Crs::Wgs84_3D => "wgs-84-3d",
        }
    }

    pub fn from_srid(srid: i64) -> Option<Crs> {
        Crs::ALL.into_iter().find(|c| c.srid() == srid)
    }

    /// Case-insensitive, as Neo4j accepts `'WGS-84'`.
    pub fn from_name(name: &str) -> Option<Crs> {
        Crs::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }

    pub fn is_3d(self) -> bool {
        matches!(self, Crs::Cartesian3D | Crs::Wgs84_3D)
    }

    pub fn is_geographic(self) -> bool {
        matches!(self, Crs::Wgs84 | Crs::Wgs84_3D)
    }
}

/// A point. Build it with [`Point::new`], which checks the invariants.
#[derive(Copy, Clone, Debug)]
pub struct Point {
    crs: Crs,
    x: f64,
    y: f64,
    z: Option<f64>,
}

impl Point {
    /// `None` when the dimension does not match the CRS.
    pub fn new(crs: Crs, x: f64, y: f64, z: Option<f64>) -> Option<Point> {
        (crs.is_3d() == z.is_some()).then_some(Point { crs, x, y, z })
    }

    pub fn crs(&self) -> Crs {
        self.crs
    }
    pub fn x(&self) -> f64 {
        self.x
    }
    pub fn y(&self) -> f64 {
        self.y
    }
    pub fn z(&self) -> Option<f64> {
        self.z
    }

    /// The distance in the CRS's unit (metres for WGS-84): Euclidean for
    /// Cartesian points, haversine on a sphere of [`EARTH_RADIUS_METERS`]
    /// for geographic ones (3D: the great-circle distance at the mean height
    /// combined with the height difference, as Neo4j computes it). `None`
    /// for points of different CRSs.
    pub fn distance(&self, other: &Point) -> Option<f64> {
        if self.crs != other.crs {
            return None;
        }
        if !self.crs.is_geographic() {
            let dz = self.z.unwrap_or(0.0) - other.z.unwrap_or(0.0);
            let (dx, dy) = (self.x - other.x, self.y - other.y);
            return Some((dx * dx + dy * dy + dz * dz).sqrt());
        }
        let (lat1, lat2) = (self.y.to_radians(), other.y.to_radians());
        let dlat = lat2 - lat1;
        let dlon = (other.x - self.x).to_radians();
        let a = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
        let angle = 2.0 * a.sqrt().atan2((1.0 - a).sqrt());
        match (self.z, other.z) {
            (Some(h1), Some(h2)) => {
                let flat = (EARTH_RADIUS_METERS + (h1 + h2) / 2.0) * angle;
                let dz = h2 - h1;
                Some((flat * flat + dz * dz).sqrt())
            }
            _ => Some(EARTH_RADIUS_METERS * angle),
        }
    }

    /// True when the point lies in the box spanned by `lower_left` and
    /// `upper_right` (bounds included). For geographic points a lower-left
    /// longitude greater than the upper-right one is a box crossing the
    /// antimeridian. `None` when the CRSs differ.
    pub fn within_bbox(&self, lower_left: &Point, upper_right: &Point) -> Option<bool> {
        if self.crs != lower_left.crs || self.crs != upper_right.crs {
            return None;
        }
        let x_inside = if self.crs.is_geographic() && lower_left.x > upper_right.x {
            self.x >= lower_left.x || self.x <= upper_right.x
        } else {
            lower_left.x <= self.x && self.x <= upper_right.x
        };
        let y_inside = lower_left.y <= self.y && self.y <= upper_right.y;
        let z_inside = match (self.z, lower_left.z, upper_right.z) {
            (Some(z), Some(lo), Some(hi)) => lo <= z && z <= hi,
            _ => true,
        };
        Some(x_inside && y_inside && z_inside)
    }

    /// The coordinates in order, for hashing and ordering.
    pub fn coordinates(&self) -> impl Iterator<Item = f64> {
        [Some(self.x), Some(self.y), self.z].into_iter().flatten()
    }
}

/// Coordinates compare by value (so `-0.0 == 0.0`, as Cypher's `=` does);
/// NaN equals NaN here so that equality stays an equivalence relation.
impl PartialEq for Point {
    fn eq(&self, other: &Self) -> bool {
        self.crs == other.crs
            && self
                .coordinates()
                .zip(other.coordinates())
                .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()))
    }
}
impl Eq for Point {}

impl std::hash::Hash for Point {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.crs.hash(state);
        for c in self.coordinates() {
            let c = if c == 0.0 { 0.0f64 } else { c };
            c.to_bits().hash(state);
        }
    }
}

/// The `ORDER BY` order among points: by CRS, then coordinate by coordinate.
pub fn cmp_points(a: &Point, b: &Point) -> std::cmp::Ordering {
    a.crs.cmp(&b.crs).then_with(|| {
        a.coordinates()
            .zip(b.coordinates())
            .map(|(p, q)| p.total_cmp(&q))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// Neo4j's notation: `point({x: 1.0, y: 2.0, crs: 'cartesian'})`.
impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "point({{x: ")?;
        crate::value::fmt_float(self.x, f)?;
        write!(f, ", y: ")?;
        crate::value::fmt_float(self.y, f)?;
        if let Some(z) = self.z {
            write!(f, ", z: ")?;
            crate::value::fmt_float(z, f)?;
        }
        write!(f, ", crs: '{}'}})", self.crs.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p2(crs: Crs, x: f64, y: f64) -> Point {
        Point::new(crs, x, y, None).unwrap()
    }

    #[test]
    fn dimension_must_match_the_crs() {
        assert!(Point::new(Crs::Cartesian, 1.0, 2.0, Some(3.0)).is_none());
        assert!(Point::new(Crs::Wgs84_3D, 1.0, 2.0, None).is_none());
        assert_eq!(Crs::from_srid(4979), Some(Crs::Wgs84_3D));
        assert_eq!(Crs::from_name("WGS-84"), Some(Crs::Wgs84));
        assert_eq!(Crs::from_srid(1234), None);
    }

    #[test]
    fn cartesian_distance_is_euclidean() {
        let a = p2(Crs::Cartesian, 0.0, 0.0);
        let b = p2(Crs::Cartesian, 3.0, 4.0);
        assert_eq!(a.distance(&b), Some(5.0));
        let c = Point::new(Crs::Cartesian3D, 1.0, 2.0, Some(2.0)).unwrap();
        let d = Point::new(Crs::Cartesian3D, 1.0, 2.0, Some(-1.0)).unwrap();
        assert_eq!(c.distance(&d), Some(3.0));
        assert_eq!(a.distance(&c), None);
    }

    #[test]
    fn geographic_distance_is_haversine() {
        // Malmö to Copenhagen: Neo4j answers 27842.0 m (rounded).
        let malmo = p2(Crs::Wgs84, 12.994341, 55.611784);
        let copenhagen = p2(Crs::Wgs84, 12.564590, 55.672874);
        let d = malmo.distance(&copenhagen).unwrap();
        assert_eq!(d.round(), 27842.0, "{d}");
        // A quarter of a meridian.
        let pole = p2(Crs::Wgs84, 0.0, 90.0);
        let equator = p2(Crs::Wgs84, 0.0, 0.0);
        let quarter = std::f64::consts::FRAC_PI_2 * EARTH_RADIUS_METERS;
        assert!((pole.distance(&equator).unwrap() - quarter).abs() < 1e-6);
    }

    #[test]
    fn bounding_box_includes_edges_and_wraps_the_antimeridian() {
        let ll = p2(Crs::Cartesian, 0.0, 0.0);
        let ur = p2(Crs::Cartesian, 10.0, 10.0);
        assert_eq!(
            p2(Crs::Cartesian, 10.0, 5.0).within_bbox(&ll, &ur),
            Some(true)
        );
        assert_eq!(
            p2(Crs::Cartesian, 11.0, 5.0).within_bbox(&ll, &ur),
            Some(false)
        );
        let ll = p2(Crs::Wgs84, 170.0, -10.0);
        let ur = p2(Crs::Wgs84, -170.0, 10.0);
        assert_eq!(p2(Crs::Wgs84, 179.0, 0.0).within_bbox(&ll, &ur), Some(true));
        assert_eq!(p2(Crs::Wgs84, 0.0, 0.0).within_bbox(&ll, &ur), Some(false));
        assert_eq!(p2(Crs::Cartesian, 0.0, 0.0).within_bbox(&ll, &ur), None);
    }

    #[test]
    fn display_uses_neo4j_notation() {
        assert_eq!(
            p2(Crs::Cartesian, 1.0, 2.5).to_string(),
            "point({x: 1.0, y: 2.5, crs: 'cartesian'})"
        );
        let p = Point::new(Crs::Wgs84_3D, 12.0, 56.0, Some(100.0)).unwrap();
        assert_eq!(
            p.to_string(),
            "point({x: 12.0, y: 56.0, z: 100.0, crs: 'wgs-84-3d'})"
        );
    }
}
