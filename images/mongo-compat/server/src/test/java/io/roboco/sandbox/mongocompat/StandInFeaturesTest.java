package io.roboco.sandbox.mongocompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.ValidationAction;
import com.mongodb.client.model.ValidationLevel;
import com.mongodb.client.model.ValidationOptions;
import de.bwaldvogel.mongo.MongoServer;
import io.roboco.sandbox.mongocompat.auth.UserStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stand-in's own features through the real Java driver, in process: validators, text search, transactions, TTL. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StandInFeaturesTest {
    private static final Document SCHEMA = Document.parse("{$jsonSchema: {bsonType: 'object', required: ['name'],"
            + " properties: {name: {bsonType: 'string', minLength: 1}, age: {bsonType: 'int', minimum: 0}}}}");
    private static StandInBackend backend;
    private static MongoServer server;
    private static MongoClient client;
    private static MongoDatabase db;

    @BeforeAll
    static void start() {
        backend = StandInBackend.create();
        server = new MongoServer(new AuthenticatingBackend(backend, new UserStore(), false));
        int port = server.bind().getPort();
        client = MongoClients.create("mongodb://127.0.0.1:" + port + "/?serverSelectionTimeoutMS=5000");
        db = client.getDatabase("features");
    }

    @AfterAll
    static void stop() {
        client.close();
        server.shutdownNow();
    }

    @Test
    void aJsonSchemaValidatorRefusesInvalidInsertsAndUpdatesWithCode121() {
        db.createCollection("people", new CreateCollectionOptions().validationOptions(new ValidationOptions().validator(SCHEMA)));
        MongoCollection<Document> people = db.getCollection("people");
        people.insertOne(new Document("name", "ann").append("age", 3));
        MongoWriteException insert = catchThrowableOfType(MongoWriteException.class, () -> people.insertOne(new Document("age", 4)));
        assertThat(insert.getError().getCode()).isEqualTo(121);
        assertThat(insert.getError().getDetails().toJson()).contains("name");
        MongoWriteException update = catchThrowableOfType(MongoWriteException.class,
                () -> people.updateOne(Filters.eq("name", "ann"), Updates.set("age", -1)));
        assertThat(update.getError().getCode()).isEqualTo(121);
        assertThat(people.find(Filters.eq("name", "ann")).first()).containsEntry("age", 3);
        MongoCommandException fam = catchThrowableOfType(MongoCommandException.class,
                () -> people.findOneAndUpdate(Filters.eq("name", "ann"), Updates.set("name", "")));
        assertThat(fam.getErrorCode()).isEqualTo(121);
        assertThat(people.countDocuments()).isEqualTo(1);
        Document options = db.listCollections().filter(Filters.eq("name", "people")).first().get("options", Document.class);
        assertThat(options).containsEntry("validationLevel", "strict").containsEntry("validationAction", "error");
    }

    @Test
    void warnWritesModerateSkipsInvalidDocumentsAndCollModChangesTheRules() {
        db.getCollection("legacy").insertOne(new Document("age", -5));
        db.runCommand(new Document("collMod", "legacy").append("validator", SCHEMA).append("validationLevel", "moderate"));
        MongoCollection<Document> legacy = db.getCollection("legacy");
        legacy.updateOne(Filters.eq("age", -5), Updates.set("age", -6)); // invalid before: moderate lets it be
        assertThat(catchThrowableOfType(MongoWriteException.class, () -> legacy.insertOne(new Document("age", 1))).getError().getCode())
                .isEqualTo(121);
        db.runCommand(new Document("collMod", "legacy").append("validationAction", "warn"));
        legacy.insertOne(new Document("age", 1));
        assertThat(legacy.countDocuments()).isEqualTo(2);
        db.createCollection("strictly", new CreateCollectionOptions().validationOptions(new ValidationOptions().validator(SCHEMA)
                .validationLevel(ValidationLevel.STRICT).validationAction(ValidationAction.ERROR)));
        db.runCommand(new Document("insert", "strictly").append("documents", List.of(new Document("x", 1)))
                .append("bypassDocumentValidation", true));
        assertThat(db.getCollection("strictly").countDocuments()).isEqualTo(1);
    }

    @Test
    void textSearchIsTokenisedCaseInsensitiveStemmedAndSortsByTextScore() {
        MongoCollection<Document> articles = db.getCollection("articles");
        articles.createIndex(Indexes.compoundIndex(Indexes.text("title"), Indexes.text("body")),
                new IndexOptions().weights(new Document("title", 10)));
        articles.insertMany(List.of(new Document("title", "Running shoes").append("body", "Shoes for RUNNERS"),
                new Document("title", "Cooking").append("body", "pasta, and a run to the shop"),
                new Document("title", "Café culture").append("body", "nothing about it")));
        List<Document> found = articles.find(Filters.text("run"))
                .projection(Projections.fields(Projections.metaTextScore("score"), Projections.excludeId()))
                .sort(Sorts.metaTextScore("score")).into(new ArrayList<>());
        assertThat(found).extracting(d -> d.getString("title")).containsExactly("Running shoes", "Cooking");
        assertThat(found.get(0).getDouble("score")).isGreaterThan(found.get(1).getDouble("score"));
        assertThat(articles.countDocuments(Filters.text("CAFE"))).isEqualTo(1); // an aggregate (first $match); diacritics fold
        assertThat(articles.find(Filters.text("cafe")).into(new ArrayList<>())).hasSize(1);
        assertThat(articles.find(Filters.text("\"running shoes\"")).into(new ArrayList<>())).hasSize(1);
        assertThat(articles.find(Filters.text("run -pasta")).into(new ArrayList<>())).hasSize(1);
        assertThat(articles.find(Filters.text("the")).into(new ArrayList<>())).isEmpty();
        MongoCommandException noIndex = catchThrowableOfType(MongoCommandException.class,
                () -> db.getCollection("people").find(Filters.text("x")).first());
        assertThat(noIndex.getErrorCode()).isEqualTo(27);
    }

    @Test
    void aTransactionCommitsAtomicallyAndIsInvisibleOutsideUntilThen() {
        MongoCollection<Document> accounts = db.getCollection("accounts");
        accounts.insertMany(List.of(new Document("_id", 1).append("b", 100), new Document("_id", 2).append("b", 0)));
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            accounts.updateOne(session, Filters.eq("_id", 1), Updates.inc("b", -10));
            accounts.updateOne(session, Filters.eq("_id", 2), Updates.inc("b", 10));
            assertThat(accounts.find(session, Filters.eq("_id", 1)).first()).containsEntry("b", 90);
            assertThat(accounts.find(Filters.eq("_id", 1)).first()).containsEntry("b", 100);
            accounts.insertOne(new Document("_id", 3).append("b", 7)); // committed outside after the snapshot
            assertThat(accounts.find(session, Filters.eq("_id", 3)).first()).isNull();
            session.commitTransaction();
        }
        assertThat(accounts.find().sort(Sorts.ascending("_id")).map(d -> d.getInteger("b")).into(new ArrayList<>()))
                .containsExactly(90, 10, 7);
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            accounts.deleteMany(session, new Document());
            session.abortTransaction();
        }
        assertThat(accounts.countDocuments()).isEqualTo(3);
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            MongoException duplicate = catchThrowableOfType(MongoException.class,
                    () -> accounts.insertOne(session, new Document("_id", 1)));
            assertThat(duplicate.getCode()).isEqualTo(11000);
            assertThat(duplicate.hasErrorLabel("TransientTransactionError")).as("not retried by withTransaction").isFalse();
            MongoException aborted = catchThrowableOfType(MongoException.class, () -> accounts.find(session).first());
            assertThat(aborted.getCode()).as("the error aborted the transaction").isEqualTo(251);
        }
    }

    @Test
    void aConcurrentWriteMakesTheCommitAWriteConflictAndWithTransactionRetries() {
        MongoCollection<Document> items = db.getCollection("items");
        items.insertOne(new Document("_id", "x").append("n", 0));
        try (ClientSession session = client.startSession()) {
            session.startTransaction();
            items.updateOne(session, Filters.eq("_id", "x"), Updates.inc("n", 1));
            items.updateOne(Filters.eq("_id", "x"), Updates.inc("n", 100));
            MongoException conflict = catchThrowableOfType(MongoException.class, session::commitTransaction);
            assertThat(conflict.getCode()).isEqualTo(112);
            assertThat(conflict.hasErrorLabel("TransientTransactionError")).isTrue();
        }
        assertThat(items.find().first()).containsEntry("n", 100);
        int[] attempts = {0};
        try (ClientSession session = client.startSession()) {
            session.withTransaction(() -> {
                attempts[0]++;
                items.updateOne(session, Filters.eq("_id", "x"), Updates.inc("n", 1));
                if (attempts[0] == 1) {
                    items.updateOne(Filters.eq("_id", "x"), Updates.inc("n", 1000));
                }
                return null;
            });
        }
        assertThat(attempts[0]).isEqualTo(2);
        assertThat(items.find().first()).containsEntry("n", 1101);
    }

    @Test
    void theHandshakeAdvertisesSessions() {
        Document hello = db.runCommand(new Document("hello", 1));
        assertThat(hello).containsEntry("logicalSessionTimeoutMinutes", 30).containsEntry("msg", "isdbgrid");
    }

    @Test
    void theTtlMonitorDeletesExpiredDocuments() {
        MongoCollection<Document> sessions = db.getCollection("sessions");
        sessions.createIndex(Indexes.ascending("at"), new IndexOptions().expireAfter(60L, TimeUnit.SECONDS));
        sessions.insertMany(List.of(new Document("at", Date.from(Instant.now().minusSeconds(120))),
                new Document("at", new Date()), new Document("at", "not a date")));
        assertThat(TtlMonitor.sweepOnce(backend)).isEqualTo(1);
        assertThat(sessions.countDocuments()).isEqualTo(2);
    }
}
