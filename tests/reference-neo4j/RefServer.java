package refserver;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;

/**
 * The reference server for differential tests: embedded Neo4j Community with plaintext Bolt on
 * loopback and authentication off (so any credentials, and an empty LOGON, are accepted), or on
 * when the third argument is {@code auth} (then the initial user is {@code neo4j}/{@code neo4j},
 * whose password must be changed first, as in a fresh installation: for comparing the user
 * commands' answers and security failures).
 *
 * <p>Arguments: data directory, Bolt port, optionally {@code auth}. Prints one {@code READY bolt://...} line once the
 * default database is available (scripts wait for it) and shuts the DBMS down on SIGTERM through
 * a shutdown hook, so the store is left clean.
 */
public final class RefServer {
    private RefServer() {}

    public static void main(String[] args) throws InterruptedException {
        Path home = Path.of(args.length > 0 ? args[0] : "refdb");
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 7687;
        boolean auth = args.length > 2 && args[2].equals("auth");

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, Boolean.TRUE)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(GraphDatabaseSettings.auth_enabled, auth)
                .setConfig(GraphDatabaseSettings.pagecache_memory, 256L * 1024 * 1024)
                .build();

        // Readiness means the default database answers, not merely that the port is open.
        if (!dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).isAvailable(120_000)) {
            dbms.shutdown();
            throw new IllegalStateException("default database did not start");
        }

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            dbms.shutdown();
            stopped.countDown();
        }));
        System.out.println("READY bolt://127.0.0.1:" + port);
        System.out.flush();
        stopped.await();
    }
}
