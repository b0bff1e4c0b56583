"""neomodel 7 (OGM) flows, unchanged: schema install (unique constraints,
range, full-text and vector indexes), saves, lookups, filters, traversals,
relationship properties, MERGE-based get_or_create, transactions, deletes,
and its semantic (vector / full-text) filters. Tests run in file order and
build on each other, as an application's start-up and requests would."""

from datetime import datetime, timezone

import pytest
from conftest import DIMENSIONS, PASSWORD, USER, fake_embedding
from neomodel import (
    ArrayProperty,
    DateTimeProperty,
    FloatProperty,
    FulltextIndex,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    UniqueIdProperty,
    UniqueProperty,
    VectorIndex,
    db,
)


class Knows(StructuredRel):
    since = IntegerProperty(required=True)


class Person(StructuredNode):
    uid = UniqueIdProperty()
    name = StringProperty(unique_index=True, required=True)
    age = IntegerProperty(index=True, default=0)
    bio = StringProperty(fulltext_index=FulltextIndex())
    embedding = ArrayProperty(FloatProperty(), vector_index=VectorIndex(dimensions=DIMENSIONS))
    created = DateTimeProperty(default=lambda: datetime(2024, 1, 2, tzinfo=timezone.utc))
    knows = RelationshipTo("Person", "KNOWS", model=Knows)


PEOPLE = [("Ada", 36, "mathematician who wrote programs"), ("Alan", 41, "computer science pioneer"),
          ("Grace", 85, "compiler pioneer and navy admiral"), ("Linus", 54, "wrote an operating system kernel")]


@pytest.fixture(scope="module", autouse=True)
def connection(driver, uri):
    host = uri.split("://", 1)[1]
    db.set_connection(url=f"bolt://{USER}:{PASSWORD}@{host}")
    yield
    db.close_connection()


def test_install_all_labels():
    db.install_all_labels()
    constraints, _ = db.cypher_query("SHOW CONSTRAINTS YIELD labelsOrTypes, properties RETURN *")
    assert sorted(tuple(c[1]) for c in constraints) == [("name",), ("uid",)]
    indexes, _ = db.cypher_query("SHOW INDEXES YIELD type, properties WHERE type <> 'LOOKUP' RETURN type, properties")
    kinds = sorted((t, tuple(p)) for t, p in indexes)
    assert ("FULLTEXT", ("bio",)) in kinds and ("VECTOR", ("embedding",)) in kinds and ("RANGE", ("age",)) in kinds


def test_save_nodes():
    for name, age, bio in PEOPLE:
        person = Person(name=name, age=age, bio=bio, embedding=fake_embedding(bio)).save()
        assert person.element_id is not None and len(person.uid) == 32
    assert len(Person.nodes) == 4


def test_get_by_unique_property():
    assert Person.nodes.get(name="Grace").age == 85
    assert Person.nodes.get_or_none(name="Nobody") is None


def test_unique_violation_raises():
    with pytest.raises(UniqueProperty):
        Person(name="Ada").save()


def test_filter_order_limit():
    names = [p.name for p in Person.nodes.filter(age__gt=40).order_by("-age")]
    assert names == ["Grace", "Linus", "Alan"]
    assert [p.name for p in Person.nodes.order_by("name")[1:3]] == ["Alan", "Grace"]
    assert [p.name for p in Person.nodes.filter(name__startswith="A", age__lt=40)] == ["Ada"]


def test_filter_in_and_exclude():
    names = sorted(p.name for p in Person.nodes.filter(name__in=["Ada", "Linus", "X"]))
    assert names == ["Ada", "Linus"]
    assert sorted(p.name for p in Person.nodes.exclude(age__gte=50)) == ["Ada", "Alan"]


def test_connect_with_relationship_properties():
    ada, alan, grace = (Person.nodes.get(name=n) for n in ("Ada", "Alan", "Grace"))
    ada.knows.connect(alan, {"since": 1936})
    ada.knows.connect(grace, {"since": 1950})
    assert ada.knows.relationship(alan).since == 1936
    assert sorted(p.name for p in ada.knows.all()) == ["Alan", "Grace"]


def test_traversal_filter():
    ada = Person.nodes.get(name="Ada")
    assert [p.name for p in ada.knows.match(since__gt=1940)] == ["Grace"]
    assert ada.knows.is_connected(Person.nodes.get(name="Alan"))


def test_disconnect():
    ada, grace = Person.nodes.get(name="Ada"), Person.nodes.get(name="Grace")
    ada.knows.disconnect(grace)
    assert [p.name for p in ada.knows.all()] == ["Alan"]


def test_update_and_refresh():
    alan = Person.nodes.get(name="Alan")
    alan.age = 42
    alan.save()
    again = Person.nodes.get(name="Alan")
    assert again.age == 42 and again.created == datetime(2024, 1, 2, tzinfo=timezone.utc)


def test_get_or_create_merges():
    first = Person.get_or_create({"uid": "ken", "name": "Ken", "age": 79})
    second = Person.get_or_create({"uid": "ken", "name": "Ken", "age": 79})
    assert [p.name for p in first] == ["Ken"] and first[0].element_id == second[0].element_id
    assert len(Person.nodes) == 5


def test_create_or_update():
    (ken,) = Person.create_or_update({"uid": "ken", "name": "Ken", "age": 80})
    assert ken.age == 80 and Person.nodes.get(name="Ken").age == 80


def test_transaction_rollback():
    with pytest.raises(ValueError):
        with db.transaction:
            Person(name="Temp").save()
            raise ValueError("abort")
    assert Person.nodes.get_or_none(name="Temp") is None


def test_cypher_query_resolve_objects():
    rows, columns = db.cypher_query(
        "MATCH (p:Person) WHERE p.age > $age RETURN p ORDER BY p.age", {"age": 60}, resolve_objects=True)
    assert columns == ["p"] and [r[0].name for r in rows] == ["Ken", "Grace"]


def test_fulltext_semantic_filter():
    rows, _ = db.cypher_query(
        "CALL db.index.fulltext.queryNodes('fulltext_index_Person_bio', 'pioneer') YIELD node RETURN node.name ORDER BY node.name")
    assert [r[0] for r in rows] == ["Alan", "Grace"]


def test_vector_index_query():
    rows, _ = db.cypher_query(
        "CALL db.index.vector.queryNodes('vector_index_Person_embedding', 1, $v) YIELD node RETURN node.name",
        {"v": fake_embedding("compiler pioneer and navy admiral")})
    assert rows == [["Grace"]]


def test_delete():
    Person.nodes.get(name="Ken").delete()
    assert Person.nodes.get_or_none(name="Ken") is None and len(Person.nodes) == 4


def test_drop_constraints_and_indexes():
    db.drop_constraints()
    db.drop_indexes()
    constraints, _ = db.cypher_query("SHOW CONSTRAINTS")
    assert constraints == []
