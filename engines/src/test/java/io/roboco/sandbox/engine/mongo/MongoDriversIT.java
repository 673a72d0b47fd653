package io.roboco.sandbox.engine.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoSecurityException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Indexes;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.DockerCli;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.RunningSandbox;
import io.roboco.sandbox.engine.SecretSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Standard drivers with the {@code ROBOCO_TEST_MONGO_URL} the engine hands out, unchanged: the Java driver
 * (mongodb-driver-sync) and Python's (Debian {@code python3-pymongo}, run as {@code /usr/bin/python3}) insert,
 * query and index; a wrong password is refused; another agent's credentials do not read this agent's database
 * on this sandbox's port; a connection without credentials can {@code ping} and nothing else.
 *
 * <p>Two real sandbox containers (A and B, as two agents get them) of the configured Mongo image
 * ({@code -Droboco.it.image.mongo}, default the local stand-in), plus a second agent user made inside A the
 * way a warm-pool claim makes one.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MongoDriversIT {
    static final String PYTHON = System.getProperty("roboco.it.python", "/usr/bin/python3");
    private static final MongoEngine ENGINE = new MongoEngine();
    private static RunningSandbox a;
    private static RunningSandbox b;
    private static Path script;

    @BeforeAll
    static void start() throws Exception {
        EngineImages.requireLocal(MongoEngineIT.IMAGE);
        ExecResult pymongo = run(List.of(PYTHON, "-c", "import pymongo; print(pymongo.version)"), Map.of());
        assertThat(pymongo.ok())
                .as(
                        "Debian's python3-pymongo is installed for %s (scripts/test.sh installs it): %s",
                        PYTHON, pymongo.output())
                .isTrue();
        script = Files.createTempFile("pymongo_check", ".py");
        try (InputStream in = MongoDriversIT.class.getResourceAsStream("/pymongo_check.py")) {
            Files.write(script, in.readAllBytes());
        }
        a = RunningSandbox.start(ENGINE, MongoEngineIT.IMAGE);
        b = RunningSandbox.start(ENGINE, MongoEngineIT.IMAGE);
        ENGINE.prepareAgent(a.target);
        ENGINE.prepareAgent(b.target);
    }

    @AfterAll
    static void stop() throws IOException {
        for (RunningSandbox s : new RunningSandbox[] {a, b}) {
            if (s != null) {
                s.close();
            }
        }
        if (script != null) {
            Files.deleteIfExists(script);
        }
    }

    @Test
    void theJavaDriverInsertsQueriesAndIndexesWithTheHandedOutUrl() {
        try (MongoClient client = MongoClients.create(url(a))) {
            MongoDatabase db = client.getDatabase(a.credentials.database());
            db.getCollection("java_notes")
                    .insertMany(List.of(new Document("n", 1).append("body", "from java"), new Document("n", 2)));
            assertThat(db.getCollection("java_notes").find(new Document("n", 1)).first())
                    .containsEntry("body", "from java");
            assertThat(db.getCollection("java_notes").createIndex(Indexes.ascending("n")))
                    .isEqualTo("n_1");
            assertThat(db.getCollection("java_notes")
                            .listIndexes()
                            .map(d -> d.getString("name"))
                            .into(new ArrayList<>()))
                    .containsExactlyInAnyOrder("_id_", "n_1");
            assertThat(db.getCollection("java_notes").countDocuments()).isEqualTo(2);
        }
    }

    @Test
    void pythonsDriverInsertsQueriesAndIndexesWithTheHandedOutUrl() {
        Document out = python(url(a), "use");
        assertThat(out.getBoolean("ok")).as("%s", out.toJson()).isTrue();
        assertThat(out.getString("db")).isEqualTo(a.credentials.database());
        assertThat(out.get("found", Document.class)).containsEntry("body", "from python");
        assertThat(out.getString("index")).isEqualTo("n_1");
        assertThat(out.getList("indexes", String.class)).containsExactly("_id_", "n_1");
        System.out.println("MongoDriversIT " + out.getString("driver")
                + " with the handed-out URL: insert, find, create_index ok");
    }

    @Test
    void aWrongPasswordIsRefusedByBothDrivers() {
        String wrong = url(a.withAgentPassword("wrong-" + a.credentials.password()));
        try (MongoClient client = MongoClients.create(wrong)) {
            assertThatThrownBy(
                            () -> client.getDatabase(a.credentials.database()).runCommand(new Document("ping", 1)))
                    .isInstanceOf(MongoSecurityException.class)
                    .rootCause()
                    .hasMessageContaining("Authentication failed");
        }
        Document out = python(wrong, "use");
        assertThat(out.getBoolean("ok")).isFalse();
        assertThat(out.getInteger("code")).as("%s", out.toJson()).isEqualTo(18);
    }

    @Test
    void agentBsCredentialsDoNotReadAgentAsDatabaseOnAsPort() throws Exception {
        try (MongoClient owner = MongoClients.create(url(a))) {
            owner.getDatabase(a.credentials.database()).getCollection("notes").insertOne(new Document("secret", "a's"));
        }
        // B's own credentials (from B's sandbox) pointed at A's port: no such user in A.
        String bOnA = ENGINE.env(a.target.endpoint(), b.credentials).get("ROBOCO_TEST_MONGO_URL");
        try (MongoClient client = MongoClients.create(bOnA)) {
            assertThatThrownBy(() -> client.getDatabase(a.credentials.database())
                            .getCollection("notes")
                            .find()
                            .first())
                    .isInstanceOf(MongoSecurityException.class);
        }
        assertThat(python(bOnA, "read", a.credentials.database()).getInteger("code"))
                .isEqualTo(18);

        // A second agent user inside A's server (as a warm-pool claim makes one): authenticated, but A's database is
        // not its.
        Credentials second = ENGINE.claimCredentials(a.credentials, SecretSource.secure());
        ProbeTarget secondTarget = new ProbeTarget(a.target.endpoint(), second, a.target.running(), a.target.logTail());
        ENGINE.prepareClaim(secondTarget);
        String secondUrl = ENGINE.env(a.target.endpoint(), second).get("ROBOCO_TEST_MONGO_URL");
        try (MongoClient client = MongoClients.create(secondUrl)) {
            assertThat(client.getDatabase(second.database())
                            .runCommand(new Document("ping", 1))
                            .get("ok"))
                    .isEqualTo(1.0);
            assertThatThrownBy(() -> client.getDatabase(a.credentials.database())
                            .getCollection("notes")
                            .find()
                            .first())
                    .isInstanceOf(MongoCommandException.class)
                    .matches(e -> ((MongoCommandException) e).getErrorCode() == 13, "code 13 Unauthorized");
            assertThat(client.listDatabaseNames().into(new ArrayList<>())).doesNotContain(a.credentials.database());
        }
        Document out = python(secondUrl, "read", a.credentials.database());
        assertThat(out.getInteger("code")).as("%s", out.toJson()).isEqualTo(13);
    }

    @Test
    void aConnectionWithoutCredentialsCanPingAndNothingElse() {
        try (MongoClient client = MongoClients.create(
                "mongodb://127.0.0.1:" + a.target.endpoint().port() + "/?serverSelectionTimeoutMS=5000")) {
            assertThat(client.getDatabase("admin")
                            .runCommand(new Document("ping", 1))
                            .get("ok"))
                    .isEqualTo(1.0);
            for (Document command : List.of(
                    new Document("find", "notes"),
                    new Document("listDatabases", 1),
                    new Document("insert", "notes").append("documents", List.of(new Document("x", 1))),
                    new Document("usersInfo", 1))) {
                String db = command.containsKey("listDatabases") ? "admin" : a.credentials.database();
                assertThatThrownBy(() -> client.getDatabase(db).runCommand(command))
                        .as(command.toJson())
                        .isInstanceOf(MongoCommandException.class)
                        .matches(e -> ((MongoCommandException) e).getErrorCode() == 13, "code 13 Unauthorized");
            }
        }
        Document out = python(url(a), "anonymous", a.credentials.database());
        assertThat(out.get("ping")).isEqualTo(1.0);
        assertThat(out.get("read", Document.class).getInteger("code"))
                .as("%s", out.toJson())
                .isEqualTo(13);
        assertThat(out.get("listDatabases", Document.class).getInteger("code")).isEqualTo(13);
    }

    @Test
    void noPasswordReachesTheContainerLogs() {
        String logs = DockerCli.logTail(a.id) + DockerCli.logTail(b.id);
        for (RunningSandbox s : new RunningSandbox[] {a, b}) {
            assertThat(logs).doesNotContain(s.credentials.password()).doesNotContain(s.credentials.adminPassword());
        }
    }

    private static String url(RunningSandbox s) {
        return url(s.target);
    }

    private static String url(ProbeTarget t) {
        return ENGINE.env(t.endpoint(), t.credentials()).get("ROBOCO_TEST_MONGO_URL");
    }

    /** Runs the pymongo script with the URL in its environment (never on its command line). */
    private static Document python(String url, String... args) {
        List<String> command = new ArrayList<>(List.of(PYTHON, script.toString()));
        command.addAll(List.of(args));
        ExecResult result = run(command, Map.of("ROBOCO_TEST_MONGO_URL", url));
        assertThat(result.ok()).as("pymongo script: %s", result.output()).isTrue();
        return Document.parse(result.stdout().strip());
    }

    private static ExecResult run(List<String> command, Map<String, String> env) {
        try {
            return DockerCli.docker(command, env, 60); // any process, with a timeout and both streams read
        } catch (UncheckedIOException e) {
            throw new IllegalStateException(
                    "cannot run " + command.get(0) + " (Debian's python3 with python3-pymongo;"
                            + " scripts/test.sh installs it)",
                    e);
        }
    }
}
