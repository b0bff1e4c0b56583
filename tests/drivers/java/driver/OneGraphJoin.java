// Issue 26's RDF + CSV join through the official Java driver: on a server
// where an N-Triples file and openCypher CSV files sharing IRIs were loaded
// (tests/e2e/rdf: people.nt, employers.csv, works_for.csv), finds a vertex by
// IRI, by PREFIX name, and joins RDF facts (rdf:type, ex:knows) with CSV
// facts (WORKS_FOR, the company's name) in one query. Prints one line per
// answer, fields separated by '|'.
// Usage: java -cp 'target/classes:target/lib/*' OneGraphJoin bolt://HOST:PORT

import java.util.List;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Session;

public final class OneGraphJoin {
    private static final String PREFIX = "PREFIX ex: <http://example.org/> ";

    public static void main(String[] args) {
        try (Driver driver = GraphDatabase.driver(args[0], AuthTokens.basic("neo4j", "x"));
                Session session = driver.session()) {
            String byIri = session.run(
                            "MATCH (n) WHERE id(n) = <http://example.org/alice> "
                                    + "RETURN n.`http://example.org/name` AS name")
                    .single().get("name").asString();
            System.out.println("by iri|" + byIri);
            String byPrefix = session.run(PREFIX + "MATCH (n) WHERE id(n) = ex::bob RETURN n.ex::name AS name")
                    .single().get("name").asString();
            System.out.println("by prefix|" + byPrefix);
            List<Record> rows = session.run(PREFIX
                            + "MATCH (b:ex::Person)<-[:ex::knows]-(a:ex::Person)-[w:WORKS_FOR]->(c:Company) "
                            + "RETURN a.ex::name AS a, b.ex::name AS b, w.since AS since, c.name AS company, "
                            + "labels(a) AS labels, elementId(c) AS companyId")
                    .list();
            for (Record r : rows) {
                System.out.println("join|" + r.get("a").asString() + "|" + r.get("b").asString() + "|"
                        + r.get("since").asLong() + "|" + r.get("company").asString() + "|"
                        + r.get("labels").asList() + "|" + r.get("companyId").asString());
            }
        }
    }
}
