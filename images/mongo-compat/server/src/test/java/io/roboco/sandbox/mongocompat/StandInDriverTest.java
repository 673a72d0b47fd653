package io.roboco.sandbox.mongocompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Indexes;
import de.bwaldvogel.mongo.MongoServer;
import io.roboco.sandbox.mongocompat.auth.UserStore;
import io.roboco.sandbox.mongocompat.scram.ScramIterations;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The stand-in's access control against the real Java driver, in process (no Docker): the root user from the
 * official image's variables, users made with {@code createUser}, URLs as the sandbox hands them out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StandInDriverTest {
    private static final String ROOT_PASSWORD = "root-Pw-0123456789";
    private static MongoServer server;
    private static int port;
    private static final List<MongoClient> clients = new ArrayList<>();

    @BeforeAll
    static void start() {
        // mongod's lowest iteration counts (what the sandboxes run with): every login below derives its key with them
        UserStore users = new UserStore(new ScramIterations(5_000, 4_096));
        users.add(RootUser.of("roboco_admin", ROOT_PASSWORD, users.iterations()));
        server = new MongoServer(new AuthenticatingBackend(StandInBackend.create(), users, true));
        InetSocketAddress address = server.bind();
        port = address.getPort();
        createAgent("agent_a", "pw-a-0123456789", "sandbox_a");
        createAgent("agent_b", "pw-b-0123456789", "sandbox_b");
    }

    @AfterAll
    static void stop() {
        clients.forEach(MongoClient::close);
        server.shutdownNow();
    }

    @Test
    void theHandedOutUrlInsertsQueriesAndIndexes() {
        MongoDatabase db = client(url("agent_a", "pw-a-0123456789", "sandbox_a")).getDatabase("sandbox_a");
        db.getCollection("notes").insertMany(List.of(new Document("n", 1).append("body", "hello"), new Document("n", 2)));
        assertThat(db.getCollection("notes").find(new Document("n", 1)).first()).containsEntry("body", "hello");
        assertThat(db.getCollection("notes").createIndex(Indexes.ascending("n"))).isEqualTo("n_1");
        assertThat(db.getCollection("notes").listIndexes().into(new ArrayList<>())).hasSize(2);
        Document status = db.runCommand(new Document("connectionStatus", 1));
        assertThat(status.toJson()).contains("\"user\": \"agent_a\"").contains("\"db\": \"sandbox_a\"");
    }

    @Test
    void bothScramMechanismsAuthenticate() {
        for (String mechanism : List.of("SCRAM-SHA-1", "SCRAM-SHA-256")) {
            MongoClient c = client(url("agent_a", "pw-a-0123456789", "sandbox_a") + "&authMechanism=" + mechanism);
            assertThat(c.getDatabase("sandbox_a").runCommand(new Document("count", "notes")).get("ok")).as(mechanism).isEqualTo(1.0);
        }
    }

    @Test
    void aWrongPasswordIsRefused() {
        MongoClient c = client(url("agent_a", "wrong-password", "sandbox_a"));
        assertThatThrownBy(() -> c.getDatabase("sandbox_a").runCommand(new Document("ping", 1)))
                .isInstanceOf(MongoSecurityException.class)
                .rootCause().isInstanceOf(MongoCommandException.class).hasMessageContaining("Authentication failed");
    }

    @Test
    void agentBCannotReadAgentAsDatabase() {
        client(url("agent_a", "pw-a-0123456789", "sandbox_a")).getDatabase("sandbox_a").getCollection("secret")
                .insertOne(new Document("k", "v"));
        MongoClient b = client(url("agent_b", "pw-b-0123456789", "sandbox_b"));
        assertThatThrownBy(() -> b.getDatabase("sandbox_a").getCollection("secret").find().first())
                .isInstanceOf(MongoCommandException.class).matches(e -> ((MongoCommandException) e).getErrorCode() == 13);
        assertThatThrownBy(() -> b.getDatabase("sandbox_a").getCollection("secret").insertOne(new Document("k", "x")))
                .matches(e -> e.getMessage().contains("not authorized on sandbox_a"));
        assertThatThrownBy(() -> b.getDatabase("sandbox_b").runCommand(new Document("aggregate", "x")
                .append("pipeline", List.of(new Document("$merge", new Document("into", new Document("db", "sandbox_a").append("coll", "secret")))))
                .append("cursor", new Document())))
                .matches(e -> e.getMessage().contains("not authorized on sandbox_a"));
        assertThat(b.listDatabaseNames().into(new ArrayList<>())).doesNotContain("sandbox_a");
        // B's password is not A's either.
        MongoClient bAsA = client(url("agent_a", "pw-b-0123456789", "sandbox_a"));
        assertThatThrownBy(() -> bAsA.getDatabase("sandbox_a").runCommand(new Document("ping", 1))).isInstanceOf(MongoSecurityException.class);
    }

    @Test
    void anotherUsersCursorCannotBeContinued() {
        MongoDatabase a = client(url("agent_a", "pw-a-0123456789", "sandbox_a")).getDatabase("sandbox_a");
        List<Document> many = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            many.add(new Document("i", i));
        }
        a.getCollection("many").insertMany(many);
        try (MongoCursor<Document> cursor = a.getCollection("many").find().batchSize(2).iterator()) {
            cursor.next();
            long id = cursor.getServerCursor().getId();
            MongoDatabase b = client(url("agent_b", "pw-b-0123456789", "sandbox_b")).getDatabase("sandbox_a");
            assertThatThrownBy(() -> b.runCommand(new Document("getMore", id).append("collection", "many")))
                    .isInstanceOf(MongoCommandException.class).matches(e -> ((MongoCommandException) e).getErrorCode() == 13);
            MongoDatabase bOwn = client(url("agent_b", "pw-b-0123456789", "sandbox_b")).getDatabase("sandbox_b");
            assertThatThrownBy(() -> bOwn.runCommand(new Document("getMore", id).append("collection", "many")))
                    .isInstanceOf(MongoCommandException.class).matches(e -> ((MongoCommandException) e).getErrorCode() == 13);
            int rest = 0;
            while (cursor.hasNext()) {
                cursor.next();
                rest++;
            }
            assertThat(rest).isEqualTo(9);
        }
    }

    @Test
    void anUnauthenticatedConnectionCanPingAndNothingElse() {
        MongoClient anonymous = client("mongodb://127.0.0.1:" + port + "/?serverSelectionTimeoutMS=3000");
        MongoDatabase admin = anonymous.getDatabase("admin");
        assertThat(admin.runCommand(new Document("ping", 1)).get("ok")).isEqualTo(1.0);
        assertThat(admin.runCommand(new Document("buildInfo", 1)).getString("version")).isNotBlank();
        assertThat(admin.runCommand(new Document("hello", 1)).getBoolean("isWritablePrimary")).isTrue();
        for (Document command : List.of(new Document("listDatabases", 1), new Document("find", "x"),
                new Document("insert", "x").append("documents", List.of(new Document())), new Document("usersInfo", 1),
                new Document("serverStatus", 1), new Document("createUser", "evil").append("pwd", "x").append("roles", List.of("root")))) {
            assertThatThrownBy(() -> anonymous.getDatabase("sandbox_a").runCommand(command)).as(command.toJson())
                    .isInstanceOf(MongoCommandException.class).matches(e -> ((MongoCommandException) e).getErrorCode() == 13);
        }
        assertThatThrownBy(() -> anonymous.getDatabase("sandbox_a").getCollection("notes").find().first())
                .matches(e -> e.getMessage().contains("requires authentication"));
    }

    @Test
    void handshakeListsTheUsersMechanismsAndUnknownCommandsAreNotFound() {
        MongoClient anonymous = client("mongodb://127.0.0.1:" + port + "/?serverSelectionTimeoutMS=3000");
        Document hello = anonymous.getDatabase("admin").runCommand(new Document("hello", 1).append("saslSupportedMechs", "sandbox_a.agent_a"));
        assertThat(hello.getList("saslSupportedMechs", String.class)).containsExactly("SCRAM-SHA-1", "SCRAM-SHA-256");
        Document unknown = anonymous.getDatabase("admin").runCommand(new Document("hello", 1).append("saslSupportedMechs", "sandbox_a.nobody"));
        assertThat(unknown).doesNotContainKey("saslSupportedMechs");
        MongoClient root = client("mongodb://roboco_admin:" + ROOT_PASSWORD + "@127.0.0.1:" + port + "/?serverSelectionTimeoutMS=3000");
        assertThatThrownBy(() -> root.getDatabase("admin").runCommand(new Document("explain", new Document("find", "x"))))
                .matches(e -> ((MongoCommandException) e).getErrorCode() == 59);
    }

    @Test
    void usersAreManagedPerDatabaseAndOnlyByUserAdmins() {
        MongoClient root = client("mongodb://roboco_admin:" + ROOT_PASSWORD + "@127.0.0.1:" + port + "/?serverSelectionTimeoutMS=3000");
        MongoDatabase other = root.getDatabase("sandbox_c");
        other.runCommand(new Document("createUser", "agent_c").append("pwd", "pw-c-0123456789").append("roles", List.of("readWrite"))
                .append("mechanisms", List.of("SCRAM-SHA-256")));
        assertThatThrownBy(() -> other.runCommand(new Document("createUser", "agent_c").append("pwd", "x").append("roles", List.of())))
                .matches(e -> ((MongoCommandException) e).getErrorCode() == 51003);
        assertThatThrownBy(() -> other.runCommand(new Document("createUser", "x").append("pwd", "x").append("roles", List.of("root"))))
                .matches(e -> ((MongoCommandException) e).getErrorCode() == 31);
        Document info = other.runCommand(new Document("usersInfo", "agent_c"));
        assertThat(info.toJson()).contains("\"user\": \"agent_c\"").contains("SCRAM-SHA-256").doesNotContain("SCRAM-SHA-1\"")
                .doesNotContain("pw-c");

        MongoClient c = client(url("agent_c", "pw-c-0123456789", "sandbox_c"));
        assertThat(c.getDatabase("sandbox_c").runCommand(new Document("usersInfo", "agent_c")).toJson()).contains("agent_c");
        assertThatThrownBy(() -> c.getDatabase("sandbox_c").runCommand(new Document("createUser", "y").append("pwd", "y")
                .append("roles", List.of("readWrite")))).matches(e -> ((MongoCommandException) e).getErrorCode() == 13);
        assertThatThrownBy(() -> c.getDatabase("sandbox_c").runCommand(new Document("usersInfo", "agent_a")
                .append("db", "sandbox_a"))).isInstanceOf(MongoCommandException.class);

        other.runCommand(new Document("dropUser", "agent_c"));
        assertThatThrownBy(() -> c.getDatabase("sandbox_c").getCollection("x").find().first())
                .as("a dropped user's open connection loses its rights").isInstanceOf(MongoCommandException.class);
        assertThatThrownBy(() -> other.runCommand(new Document("dropUser", "agent_c")))
                .matches(e -> ((MongoCommandException) e).getErrorCode() == 11);
    }

    private static void createAgent(String user, String password, String db) {
        try (MongoClient root = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString("mongodb://127.0.0.1:" + port + "/?serverSelectionTimeoutMS=3000"))
                .credential(MongoCredential.createCredential("roboco_admin", "admin", ROOT_PASSWORD.toCharArray()))
                .build())) {
            root.getDatabase(db).runCommand(new Document("createUser", user).append("pwd", password)
                    .append("roles", List.of(new Document("role", "readWrite").append("db", db))));
        }
    }

    /** The shape MongoEngine hands out: {@code mongodb://user:pw@host:port/db?authSource=db}. */
    private static String url(String user, String password, String db) {
        return "mongodb://" + user + ":" + password + "@127.0.0.1:" + port + "/" + db + "?authSource=" + db + "&serverSelectionTimeoutMS=3000";
    }

    private static MongoClient client(String url) {
        MongoClient c = MongoClients.create(url);
        clients.add(c);
        return c;
    }
}
