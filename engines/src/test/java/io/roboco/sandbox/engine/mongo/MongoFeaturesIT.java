package io.roboco.sandbox.engine.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.mongodb.ConnectionString;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Accumulators;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Collation;
import com.mongodb.client.model.CollationStrength;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.CreateViewOptions;
import com.mongodb.client.model.Facet;
import com.mongodb.client.model.Field;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.TimeSeriesOptions;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.ValidationAction;
import com.mongodb.client.model.ValidationLevel;
import com.mongodb.client.model.ValidationOptions;
import com.mongodb.client.model.geojson.Point;
import com.mongodb.client.model.geojson.Position;
import io.roboco.sandbox.engine.DockerCli;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.RunningSandbox;
import io.roboco.sandbox.engine.Urls;
import io.roboco.sandbox.engine.mongo.MongoFidelity.Feature;
import io.roboco.sandbox.engine.mongo.MongoFidelity.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every row of the fidelity table ({@link MongoFidelity}, docs/mongo-fidelity.md) against a real server, with the
 * Java driver and Debian's pymongo ({@code /usr/bin/python3}, resources/pymongo_features.py) on the handed-out URL:
 * a feature the stand-in implements passes its assertions with both drivers; one it does not is refused by both
 * with an error naming it and the local stand-in. The server is a stand-in container of the configured image
 * ({@code -Droboco.it.image.mongo}, default the local one), or, when {@code ROBOCO_TEST_MONGOD_URL} is set, that
 * mongod, where each row must show its production outcome: {@code ROBOCO_TEST_MONGOD_URL} is a {@code readWrite}
 * user's URL with its database (as the engine hands one out), {@code ROBOCO_TEST_MONGOD_ADMIN_URL} a root user's on
 * the same server (for collMod and bypassDocumentValidation).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class MongoFeaturesIT {
    static final String REFUSAL = "not implemented by the local Mongo stand-in";
    private static final String MONGOD_URL = System.getenv("ROBOCO_TEST_MONGOD_URL");
    private static final String MONGOD_ADMIN_URL = System.getenv("ROBOCO_TEST_MONGOD_ADMIN_URL");

    private static RunningSandbox sandbox;
    private static String agentUrl;
    private static String adminUrl;
    private static MongoClient agent;
    private static MongoClient admin;
    private static String dbName;
    private static Document python;

    @BeforeAll
    static void start() throws Exception {
        if (MONGOD_URL != null && !MONGOD_URL.isBlank()) {
            agentUrl = MONGOD_URL;
            adminUrl = MONGOD_ADMIN_URL == null || MONGOD_ADMIN_URL.isBlank() ? MONGOD_URL : MONGOD_ADMIN_URL;
        } else {
            EngineImages.requireLocal(MongoEngineIT.IMAGE);
            MongoEngine engine = new MongoEngine();
            sandbox = RunningSandbox.start(engine, MongoEngineIT.IMAGE);
            engine.prepareAgent(sandbox.target);
            agentUrl =
                    engine.env(sandbox.target.endpoint(), sandbox.credentials).get("ROBOCO_TEST_MONGO_URL");
            adminUrl = Urls.of(
                    "mongodb",
                    sandbox.credentials.adminUser(),
                    sandbox.credentials.adminPassword(),
                    sandbox.target.endpoint(),
                    sandbox.credentials.database() + "?authSource=admin");
        }
        agent = MongoClients.create(agentUrl);
        admin = MongoClients.create(adminUrl);
        String urlDatabase = new ConnectionString(agentUrl).getDatabase();
        dbName = urlDatabase == null ? "fidelity" : urlDatabase;
        python = runPython();
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (sandbox != null) {
            sandbox.close();
        }
    }

    @Test
    void everyRowOfTheFidelityTableHoldsWithTheJavaDriverAndPymongo() throws IOException {
        boolean mongod = MONGOD_URL != null && !MONGOD_URL.isBlank();
        boolean transactions = supportsTransactions();
        List<String> mismatches = new ArrayList<>();
        StringBuilder observed =
                new StringBuilder("| feature | expected | Java driver | pymongo |\n| --- | --- | --- | --- |\n");
        int checked = 0;
        for (Feature f : MongoFidelity.FEATURES) {
            if (mongod && f.needsReplicaSetOrRouter() && !transactions) {
                observed.append("| ").append(f.id()).append(" | skipped: standalone mongod | | |\n");
                continue;
            }
            Outcome expected = mongod ? Outcome.WORKS : f.standIn();
            String java = javaOutcome(f);
            String py = pythonOutcome(f);
            observed.append("| ")
                    .append(f.id())
                    .append(" | ")
                    .append(expected)
                    .append(" | ")
                    .append(java)
                    .append(" | ")
                    .append(py)
                    .append(" |\n");
            for (String[] driver : new String[][] {{"Java driver", java}, {"pymongo", py}}) {
                if (!driver[1].startsWith(expected.name())) {
                    mismatches.add(f.id() + " with the " + driver[0] + ": expected " + expected + ", got " + driver[1]);
                }
            }
            checked++;
        }
        Path report = Path.of("target", "mongo-fidelity-observed.md");
        Files.createDirectories(report.getParent());
        Files.writeString(report, observed.toString(), StandardCharsets.UTF_8);
        System.out.println(observed);
        System.out.printf(
                "[figure] mongo fidelity rows checked against %s: %d of %d, with both drivers%n",
                mongod ? "mongod" : MongoEngineIT.IMAGE, checked, MongoFidelity.FEATURES.size());
        assertThat(mismatches)
                .as("fidelity rows that do not hold (observed table: %s)", report.toAbsolutePath())
                .isEmpty();
    }

    private static boolean supportsTransactions() {
        Document hello = agent.getDatabase("admin").runCommand(new Document("hello", 1));
        return hello.containsKey("setName") || "isdbgrid".equals(hello.get("msg"));
    }

    /** WORKS, REFUSED: message, or FAILED: what went wrong. */
    private static String javaOutcome(Feature f) {
        try {
            JAVA_CHECKS.get(f.id()).run(agent.getDatabase(dbName), "f_" + f.id().replace('-', '_') + "_java");
            return Outcome.WORKS.name();
        } catch (MongoException e) {
            return (String.valueOf(e.getMessage()).contains(REFUSAL) ? "REFUSED: " : "FAILED: ") + e.getMessage();
        } catch (AssertionError | Exception e) {
            return "FAILED: " + e;
        }
    }

    private static String pythonOutcome(Feature f) {
        if (!(python.get(f.id()) instanceof Document result)) {
            return "FAILED: no pymongo check for " + f.id();
        }
        String outcome = result.getString("outcome");
        String detail = String.valueOf(result.get("detail"));
        return switch (outcome) {
            case "works" -> Outcome.WORKS.name();
            case "error" -> (detail.contains(REFUSAL) ? "REFUSED: " : "FAILED: ") + detail;
            default -> "FAILED: " + detail;
        };
    }

    private interface Check {
        void run(MongoDatabase db, String name) throws Exception;
    }

    private static final Document SCHEMA = Document.parse("{$jsonSchema: {bsonType: 'object', required: ['name'],"
            + " properties: {name: {bsonType: 'string', minLength: 1}, age: {bsonType: 'int', minimum: 0}}}}");

    private static final Map<String, Check> JAVA_CHECKS = new LinkedHashMap<>();

    static {
        JAVA_CHECKS.put("crud", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.insertMany(List.of(new Document("_id", 1).append("n", 1), new Document("_id", 2).append("n", 2)));
            c.updateOne(Filters.eq("_id", 3), Updates.set("n", 3), new UpdateOptions().upsert(true));
            Document after = c.findOneAndUpdate(
                    Filters.eq("_id", 1),
                    Updates.inc("n", 10),
                    new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
            assertThat(after).containsEntry("n", 11);
            c.bulkWrite(List.of(
                    new InsertOneModel<>(new Document("_id", 4)),
                    new UpdateOneModel<>(Filters.eq("_id", 2), Updates.set("n", 0))));
            c.deleteOne(Filters.eq("_id", 4));
            assertThat(c.countDocuments()).isEqualTo(3);
            assertThat(c.find(Filters.eq("_id", 2)).first()).containsEntry("n", 0);
        });
        JAVA_CHECKS.put("unique-index", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));
            c.insertOne(new Document("email", "a@x"));
            MongoWriteException e =
                    catchThrowableOfType(MongoWriteException.class, () -> c.insertOne(new Document("email", "a@x")));
            assertThat(e).isNotNull();
            assertThat(e.getError().getCode()).isEqualTo(11000);
        });
        JAVA_CHECKS.put("aggregation", (db, name) -> {
            MongoCollection<Document> orders = db.getCollection(name);
            MongoCollection<Document> users = db.getCollection(name + "_users");
            users.insertOne(new Document("_id", "u1").append("name", "ann"));
            orders.insertMany(List.of(
                    new Document("user", "u1").append("items", List.of(1, 2)),
                    new Document("user", "u1").append("items", List.of(3))));
            List<Document> out = orders.aggregate(List.of(
                            Aggregates.unwind("$items"),
                            Aggregates.group("$user", Accumulators.sum("total", "$items")),
                            Aggregates.lookup(name + "_users", "_id", "_id", "user"),
                            Aggregates.set(new Field<>("k", 1)),
                            new Document(
                                    "$replaceWith",
                                    new Document("total", "$total")
                                            .append("who", new Document("$arrayElemAt", List.of("$user.name", 0)))),
                            Aggregates.facet(new Facet("all", List.of(Aggregates.match(new Document()))))))
                    .into(new ArrayList<>());
            assertThat(out.get(0).getList("all", Document.class))
                    .containsExactly(new Document("total", 6).append("who", "ann"));
        });
        JAVA_CHECKS.put("list-collections", (db, name) -> {
            db.createCollection(name);
            db.createCollection(name + "_other");
            List<Document> listed =
                    db.listCollections().filter(Filters.eq("name", name)).into(new ArrayList<>());
            assertThat(listed).extracting(d -> d.getString("name")).containsExactly(name);
            Document nameOnly = db.runCommand(new Document("listCollections", 1)
                    .append("nameOnly", true)
                    .append("filter", new Document("name", name)));
            assertThat(nameOnly.toJson()).contains("\"name\": \"" + name + "\"").doesNotContain(name + "_other");
        });
        JAVA_CHECKS.put("ttl-index", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.createIndex(Indexes.ascending("at"), new IndexOptions().expireAfter(3600L, TimeUnit.SECONDS));
            assertThat(c.listIndexes().into(new ArrayList<>()).toString()).contains("expireAfterSeconds");
        });
        JAVA_CHECKS.put("jsonschema-validator", (db, name) -> {
            db.createCollection(
                    name, new CreateCollectionOptions().validationOptions(new ValidationOptions().validator(SCHEMA)));
            MongoCollection<Document> c = db.getCollection(name);
            c.insertOne(new Document("name", "ann").append("age", 3));
            assertThat(catchThrowableOfType(MongoWriteException.class, () -> c.insertOne(new Document("age", 4)))
                            .getError()
                            .getCode())
                    .isEqualTo(121);
            assertThat(catchThrowableOfType(
                                    MongoWriteException.class,
                                    () -> c.updateOne(Filters.eq("name", "ann"), Updates.set("age", -1)))
                            .getError()
                            .getCode())
                    .isEqualTo(121);
            assertThat(catchThrowableOfType(
                                    MongoCommandException.class,
                                    () -> c.findOneAndUpdate(Filters.eq("name", "ann"), Updates.set("name", "")))
                            .getErrorCode())
                    .isEqualTo(121);
            assertThat(c.find().into(new ArrayList<>()))
                    .hasSize(1)
                    .first()
                    .satisfies(d -> assertThat(d).containsEntry("age", 3).containsEntry("name", "ann"));
        });
        JAVA_CHECKS.put("validation-level-action", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.insertOne(new Document("age", -5));
            admin.getDatabase(db.getName())
                    .runCommand(new Document("collMod", name)
                            .append("validator", SCHEMA)
                            .append("validationLevel", "moderate"));
            c.updateOne(Filters.eq("age", -5), Updates.set("age", -6));
            assertThat(catchThrowableOfType(MongoWriteException.class, () -> c.insertOne(new Document("age", 1)))
                            .getError()
                            .getCode())
                    .isEqualTo(121);
            db.createCollection(
                    name + "_warn",
                    new CreateCollectionOptions()
                            .validationOptions(new ValidationOptions()
                                    .validator(SCHEMA)
                                    .validationLevel(ValidationLevel.STRICT)
                                    .validationAction(ValidationAction.WARN)));
            db.getCollection(name + "_warn").insertOne(new Document("age", 1));
            assertThat(db.getCollection(name + "_warn").countDocuments()).isEqualTo(1);
        });
        JAVA_CHECKS.put("collmod-validator", (db, name) -> {
            db.getCollection(name).insertOne(new Document("name", "ok"));
            assertThat(catchThrowableOfType(
                                    MongoCommandException.class,
                                    () -> db.runCommand(new Document("collMod", name).append("validator", SCHEMA)))
                            .getErrorCode())
                    .as("the readWrite agent may not collMod")
                    .isEqualTo(13);
            admin.getDatabase(db.getName()).runCommand(new Document("collMod", name).append("validator", SCHEMA));
            assertThat(catchThrowableOfType(
                                    MongoWriteException.class,
                                    () -> db.getCollection(name).insertOne(new Document("x", 1)))
                            .getError()
                            .getCode())
                    .isEqualTo(121);
        });
        JAVA_CHECKS.put("bypass-validation", (db, name) -> {
            db.createCollection(
                    name, new CreateCollectionOptions().validationOptions(new ValidationOptions().validator(SCHEMA)));
            Document insert = new Document("insert", name)
                    .append("documents", List.of(new Document("x", 1)))
                    .append("bypassDocumentValidation", true);
            assertThat(catchThrowableOfType(MongoCommandException.class, () -> db.runCommand(insert))
                            .getErrorCode())
                    .isEqualTo(13);
            admin.getDatabase(db.getName()).runCommand(insert);
            assertThat(db.getCollection(name).countDocuments()).isEqualTo(1);
        });
        JAVA_CHECKS.put("text-search", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.createIndex(
                    Indexes.compoundIndex(Indexes.text("title"), Indexes.text("body")),
                    new IndexOptions().weights(new Document("title", 10)));
            c.insertMany(List.of(
                    new Document("title", "Running shoes").append("body", "Shoes for RUNNERS"),
                    new Document("title", "Cooking").append("body", "pasta, and a run to the shop"),
                    new Document("title", "Café culture").append("body", "nothing here")));
            List<Document> found = c.find(Filters.text("RUN"))
                    .projection(Projections.fields(Projections.metaTextScore("score"), Projections.excludeId()))
                    .sort(Sorts.metaTextScore("score"))
                    .into(new ArrayList<>());
            assertThat(found).extracting(d -> d.getString("title")).containsExactly("Running shoes", "Cooking");
            assertThat(found.get(0).getDouble("score"))
                    .isGreaterThan(found.get(1).getDouble("score"));
            assertThat(c.find(Filters.text("cafe")).into(new ArrayList<>())).hasSize(1);
        });
        JAVA_CHECKS.put("text-phrases", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.createIndex(Indexes.text("body"));
            c.insertMany(List.of(
                    new Document("body", "red apple pie"),
                    new Document("body", "apple red wine"),
                    new Document("body", "green apple")));
            assertThat(c.find(Filters.text("\"red apple\"")).into(new ArrayList<>()))
                    .hasSize(1);
            assertThat(c.find(Filters.text("apple -red")).into(new ArrayList<>()))
                    .hasSize(1);
        });
        JAVA_CHECKS.put("text-aggregate", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.createIndex(Indexes.text("body"));
            c.insertMany(List.of(
                    new Document("body", "coffee and tea"),
                    new Document("body", "coffee coffee"),
                    new Document("body", "water")));
            List<Document> out = c.aggregate(List.of(
                            Aggregates.match(Filters.text("coffee")),
                            Aggregates.project(Projections.fields(
                                    Projections.excludeId(),
                                    Projections.include("body"),
                                    Projections.metaTextScore("s"))),
                            Aggregates.sort(Sorts.descending("s"))))
                    .into(new ArrayList<>());
            assertThat(out).extracting(d -> d.getString("body")).containsExactly("coffee coffee", "coffee and tea");
        });
        JAVA_CHECKS.put("transactions-commit", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.insertMany(List.of(new Document("_id", 1).append("b", 100), new Document("_id", 2).append("b", 0)));
            try (ClientSession s = agent.startSession()) {
                s.startTransaction();
                c.updateOne(s, Filters.eq("_id", 1), Updates.inc("b", -10));
                c.updateOne(s, Filters.eq("_id", 2), Updates.inc("b", 10));
                assertThat(c.find(s, Filters.eq("_id", 1)).first()).containsEntry("b", 90);
                assertThat(c.find(Filters.eq("_id", 1)).first()).containsEntry("b", 100);
                s.commitTransaction();
            }
            assertThat(c.find()
                            .sort(Sorts.ascending("_id"))
                            .map(d -> d.getInteger("b"))
                            .into(new ArrayList<>()))
                    .containsExactly(90, 10);
        });
        JAVA_CHECKS.put("transactions-abort", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.insertOne(new Document("_id", 1));
            try (ClientSession s = agent.startSession()) {
                s.startTransaction();
                c.insertOne(s, new Document("_id", 2));
                c.deleteOne(s, Filters.eq("_id", 1));
                s.abortTransaction();
            }
            assertThat(c.find().map(d -> d.get("_id")).into(new ArrayList<>())).containsExactly(1);
        });
        JAVA_CHECKS.put("transactions-snapshot", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.insertOne(new Document("_id", 1));
            try (ClientSession s = agent.startSession()) {
                s.startTransaction();
                assertThat(c.countDocuments(s, new Document())).isEqualTo(1);
                c.insertOne(new Document("_id", 2));
                assertThat(c.find(s, Filters.eq("_id", 2)).first()).isNull();
                s.commitTransaction();
            }
        });
        JAVA_CHECKS.put("transactions-conflict", (db, name) -> {
            MongoCollection<Document> c = db.getCollection(name);
            c.insertOne(new Document("_id", "x").append("n", 0));
            int[] attempts = {0};
            boolean[] otherCommitted = {false};
            try (ClientSession s = agent.startSession()) {
                s.withTransaction(() -> {
                    attempts[0]++;
                    c.updateOne(s, Filters.eq("_id", "x"), Updates.inc("n", 1));
                    if (attempts[0] == 1) {
                        // Another transaction writes the same document: mongod refuses its write at once
                        // (WriteConflict),
                        // the stand-in lets it commit first and refuses this one's commit; both errors carry
                        // TransientTransactionError, and withTransaction runs this transaction again.
                        try (ClientSession other = agent.startSession()) {
                            other.startTransaction();
                            try {
                                c.updateOne(other, Filters.eq("_id", "x"), Updates.inc("n", 1000));
                                other.commitTransaction();
                                otherCommitted[0] = true;
                            } catch (MongoException e) {
                                assertThat(e.hasErrorLabel("TransientTransactionError"))
                                        .as("%s", e)
                                        .isTrue();
                            }
                        }
                    }
                    return null;
                });
            }
            int n = c.find().first().getInteger("n");
            if (otherCommitted[0]) {
                assertThat(attempts[0]).isEqualTo(2);
                assertThat(n).isEqualTo(1001);
            } else {
                assertThat(n).isEqualTo(1);
            }
        });
        JAVA_CHECKS.put("geo", (db, name) -> {
            db.getCollection(name).createIndex(Indexes.geo2dsphere("loc"));
            db.getCollection(name)
                    .find(Filters.near("loc", new Point(new Position(1, 2)), 1000.0, 0.0))
                    .first();
        });
        JAVA_CHECKS.put("change-streams", (db, name) -> {
            try (var cursor = db.getCollection(name).watch().cursor()) {
                cursor.tryNext();
            }
        });
        JAVA_CHECKS.put(
                "capped",
                (db, name) -> db.createCollection(
                        name, new CreateCollectionOptions().capped(true).sizeInBytes(4096)));
        JAVA_CHECKS.put("views", (db, name) -> {
            db.createView(name, name + "_source", List.of(Aggregates.match(new Document())), new CreateViewOptions());
            db.getCollection(name).find().first();
        });
        JAVA_CHECKS.put(
                "timeseries",
                (db, name) -> db.createCollection(
                        name, new CreateCollectionOptions().timeSeriesOptions(new TimeSeriesOptions("t"))));
        JAVA_CHECKS.put("collation", (db, name) -> {
            db.getCollection(name).insertOne(new Document("s", "A"));
            assertThat(db.getCollection(name)
                            .find(Filters.eq("s", "a"))
                            .collation(Collation.builder()
                                    .locale("en")
                                    .collationStrength(CollationStrength.SECONDARY)
                                    .build())
                            .first())
                    .isNotNull();
        });
        JAVA_CHECKS.put(
                "window-functions",
                (db, name) -> db.getCollection(name)
                        .aggregate(List.of(new Document(
                                "$setWindowFields",
                                new Document("sortBy", new Document("_id", 1))
                                        .append(
                                                "output",
                                                new Document("n", new Document("$documentNumber", new Document()))))))
                        .first());
        JAVA_CHECKS.put(
                "union-with",
                (db, name) -> db.getCollection(name)
                        .aggregate(List.of(Aggregates.unionWith(name + "_other", List.of())))
                        .first());
        JAVA_CHECKS.put("update-pipeline", (db, name) -> {
            db.getCollection(name).insertOne(new Document("a", 1));
            db.getCollection(name).updateOne(new Document(), List.of(Aggregates.set(new Field<>("b", "$a"))));
            assertThat(db.getCollection(name).find().first()).containsEntry("b", 1);
        });
        JAVA_CHECKS.put("where", (db, name) -> {
            db.getCollection(name).insertOne(new Document("a", 1));
            assertThat(db.getCollection(name).find(Filters.where("this.a == 1")).first())
                    .isNotNull();
        });
        JAVA_CHECKS.put("explain", (db, name) -> db.runCommand(new Document("explain", new Document("find", name))));
        JAVA_CHECKS.put("map-reduce", (db, name) -> {
            db.getCollection(name).insertOne(new Document("a", 1));
            db.runCommand(new Document("mapReduce", name)
                    .append("map", "function() { emit(this.a, 1); }")
                    .append("reduce", "function(k, v) { return Array.sum(v); }")
                    .append("out", new Document("inline", 1)));
        });
    }

    /** Runs resources/pymongo_features.py once for all rows, with the URLs in its environment (never on its command line). */
    private static Document runPython() throws IOException {
        Path script = Files.createTempFile("pymongo_features", ".py");
        try (InputStream in = MongoFeaturesIT.class.getResourceAsStream("/pymongo_features.py")) {
            Files.write(script, in.readAllBytes());
        }
        try {
            ExecResult result = DockerCli.docker(
                    List.of(MongoDriversIT.PYTHON, script.toString()),
                    Map.of("ROBOCO_TEST_MONGO_URL", agentUrl, "ROBOCO_TEST_MONGO_ADMIN_URL", adminUrl),
                    240);
            assertThat(result.ok())
                    .as(
                            "pymongo_features.py (Debian's python3-pymongo; scripts/test.sh installs it): %s",
                            result.output())
                    .isTrue();
            return Document.parse(result.stdout().strip());
        } catch (UncheckedIOException e) {
            throw new IllegalStateException(
                    "cannot run " + MongoDriversIT.PYTHON + " (Debian's python3 with python3-pymongo;"
                            + " scripts/test.sh installs it)",
                    e);
        } finally {
            Files.deleteIfExists(script);
        }
    }
}
