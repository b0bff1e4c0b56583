"""Spatial values over Bolt with the official Python driver: points arrive
as the driver's CartesianPoint / WGS84Point types in 2D and 3D, the driver's
points are accepted as parameters, stored as properties and compared."""

import pytest
from neo4j.exceptions import ClientError
from neo4j.spatial import CartesianPoint, WGS84Point


def test_points_arrive_as_driver_types(driver):
    records, _, _ = driver.execute_query(
        "RETURN point({x: 1, y: 2.5}) AS c2, point({x: 1, y: 2, z: 3}) AS c3, "
        "point({longitude: 12.5, latitude: 56.25}) AS g2, "
        "point({longitude: 12.5, latitude: 56.25, height: 100}) AS g3"
    )
    r = records[0]
    assert isinstance(r["c2"], CartesianPoint) and r["c2"].srid == 7203
    assert (r["c2"].x, r["c2"].y) == (1.0, 2.5)
    assert isinstance(r["c3"], CartesianPoint) and r["c3"].srid == 9157
    assert (r["c3"].x, r["c3"].y, r["c3"].z) == (1.0, 2.0, 3.0)
    assert isinstance(r["g2"], WGS84Point) and r["g2"].srid == 4326
    assert (r["g2"].longitude, r["g2"].latitude) == (12.5, 56.25)
    assert isinstance(r["g3"], WGS84Point) and r["g3"].srid == 4979
    assert r["g3"].height == 100.0


def test_point_parameters_round_trip_and_compute(driver):
    params = {
        "a": CartesianPoint((0.0, 0.0)),
        "b": CartesianPoint((3.0, 4.0)),
        "c": CartesianPoint((1.0, 2.0, 3.0)),
        "g": WGS84Point((12.994341, 55.611784)),
        "h": WGS84Point((12.564590, 55.672874)),
        "g3": WGS84Point((1.0, 2.0, 3.0)),
    }
    records, _, _ = driver.execute_query(
        "RETURN $a AS a, $c AS c, $g3 AS g3, point.distance($a, $b) AS d, "
        "round(point.distance($g, $h)) AS geo, $c.z AS z, $g.crs AS crs, "
        "point.withinBBox($a, $a, $b) AS inside, $a = point({x: 0, y: 0}) AS same",
        params,
    )
    assert records[0].data() == {
        "a": params["a"],
        "c": params["c"],
        "g3": params["g3"],
        "d": 5.0,
        "geo": 27842.0,
        "z": 3.0,
        "crs": "wgs-84",
        "inside": True,
        "same": True,
    }


def test_points_are_stored_as_properties(driver):
    driver.execute_query(
        "CREATE (:Place {name: 'office', at: $at, corners: $corners})",
        {"at": WGS84Point((12.5, 56.25)), "corners": [CartesianPoint((0, 0)), CartesianPoint((1, 1))]},
    )
    records, _, _ = driver.execute_query(
        "MATCH (p:Place) WHERE p.at = $at RETURN p.at AS at, p.corners AS corners, p",
        {"at": WGS84Point((12.5, 56.25))},
    )
    assert records[0]["at"] == WGS84Point((12.5, 56.25))
    assert records[0]["corners"] == [CartesianPoint((0.0, 0.0)), CartesianPoint((1.0, 1.0))]
    assert records[0]["p"]["at"] == WGS84Point((12.5, 56.25))


def test_invalid_points_are_client_errors(driver):
    with pytest.raises(ClientError) as err:
        driver.execute_query("RETURN point({longitude: 0, latitude: 91}) AS p")
    assert err.value.code == "Neo.ClientError.Statement.ArgumentError"
    # The session is usable afterwards.
    records, _, _ = driver.execute_query("RETURN point({x: 1, y: 1}).x AS x")
    assert records[0]["x"] == 1.0
