package io.roboco.sandbox.mongocompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import io.roboco.sandbox.mongocompat.auth.UserStore;
import io.roboco.sandbox.mongocompat.fidelity.CommandOptions;
import io.roboco.sandbox.mongocompat.fidelity.Operators;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nothing silently different: every option of {@code create}, {@code createIndexes}, {@code collMod},
 * {@code insert}, {@code update}, {@code delete}, {@code find}, {@code aggregate} and every aggregation stage the
 * stand-in lacks is refused by name through the real Java driver (code 238, "not implemented by the local Mongo
 * stand-in ... the production image mongo:8 has it"); what it accepts is not refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RefusalsTest {
    private static MongoServer server;
    private static MongoClient client;
    private static MongoDatabase db;

    @BeforeAll
    static void start() {
        server = new MongoServer(new AuthenticatingBackend(StandInBackend.create(), new UserStore(), false));
        int port = server.bind().getPort();
        client = MongoClients.create("mongodb://127.0.0.1:" + port + "/?serverSelectionTimeoutMS=5000");
        db = client.getDatabase("refusals");
        db.getCollection("c").insertOne(new Document("x", 1));
    }

    @AfterAll
    static void stop() {
        client.close();
        server.shutdownNow();
    }

    @Test
    void everyRefusedOptionIsRefusedByName() {
        int walked = 0;
        for (Map.Entry<String, Set<String>> e : CommandOptions.refused().entrySet()) {
            for (String option : e.getValue()) {
                Document command = commandWith(e.getKey(), option);
                assertRefused(command, option);
                walked++;
            }
        }
        System.out.println("[figure] mongo-compat refused options walked: " + walked);
        assertThat(walked).isGreaterThan(25);
    }

    @Test
    void everyAcceptedOptionIsAccepted() {
        for (Map.Entry<String, Set<String>> e : CommandOptions.accepted().entrySet()) {
            for (String option : e.getValue()) {
                Document command = commandWith(e.getKey(), option);
                MongoCommandException refused = tryRun(command);
                if (refused != null) {
                    assertThat(refused.getErrorCode()).as("%s %s: %s", e.getKey(), option, refused.getErrorMessage())
                            .isNotIn(238, 40415);
                }
            }
        }
    }

    @Test
    void everyStageTheStandInLacksIsRefusedByName() {
        for (String stage : Operators.refusedStages()) {
            assertRefused(new Document("aggregate", "c").append("pipeline", List.of(new Document(stage, new Document())))
                    .append("cursor", new Document()), stage);
        }
        System.out.println("[figure] mongo-compat refused stages: " + Operators.refusedStages().size() + " " + Operators.refusedStages());
    }

    @Test
    void servedStagesRunIncludingSetAndReplaceWith() {
        List<Document> result = db.getCollection("c").aggregate(List.of(new Document("$set", new Document("y", 2)),
                new Document("$replaceWith", new Document("y", "$y")))).into(new ArrayList<>());
        assertThat(result).containsExactly(new Document("y", 2));
    }

    @Test
    void queryExpressionAndUpdateOperatorsTheStandInLacksAreRefusedEvenOnAnEmptyCollection() {
        for (String op : Operators.refusedQueryOperators()) {
            assertRefused(new Document("find", "empty").append("filter", new Document("a", new Document(op, 1))), op);
        }
        for (String op : Operators.refusedExpressions()) {
            assertRefused(new Document("aggregate", "empty").append("pipeline",
                    List.of(new Document("$project", new Document("v", new Document(op, List.of(1)))))).append("cursor", new Document()), op);
        }
        for (String op : Operators.refusedUpdateOperators()) {
            assertRefused(new Document("update", "empty").append("updates",
                    List.of(new Document("q", new Document()).append("u", new Document(op, new Document("a", 1))))), op);
        }
    }

    @Test
    void indexKindsTheStandInLacksAreRefused() {
        for (Object kind : List.of("2dsphere", "2d", "hashed")) {
            assertRefused(new Document("createIndexes", "c").append("indexes",
                    List.of(new Document("key", new Document("loc", kind)).append("name", "i"))), String.valueOf(kind));
        }
        assertRefused(new Document("createIndexes", "c").append("indexes",
                List.of(new Document("key", new Document("$**", 1)).append("name", "w"))), "wildcard");
        assertRefused(new Document("createIndexes", "c").append("indexes", List.of(new Document("key", new Document("u", 1))
                .append("name", "u").append("unique", true).append("partialFilterExpression", new Document("u", new Document("$exists", true))))),
                "partialFilterExpression");
    }

    @Test
    void mongodCommandsTheStandInLacksNameTheStandIn() {
        for (String command : List.of("explain", "mapReduce", "currentOp", "killOp")) {
            MongoCommandException e = tryRun(new Document(command, 1));
            assertThat(e).as(command).isNotNull();
            assertThat(e.getErrorCode()).isEqualTo(59);
            assertThat(e.getErrorMessage()).contains(command).contains("local Mongo stand-in").contains("mongo:8");
        }
        assertThat(tryRun(new Document("noSuchThing", 1)).getErrorMessage()).isEqualTo("no such command: 'noSuchThing'");
    }

    @Test
    void anOptionMongodDoesNotKnowIsMongodsUnknownField() {
        MongoCommandException e = tryRun(new Document("find", "c").append("filtre", new Document()));
        assertThat(e.getErrorCode()).isEqualTo(40415);
        assertThat(e.getErrorMessage()).contains("find.filtre");
    }

    @Test
    void simpleCollationIsAcceptedAndOthersAreRefused() {
        assertThatCode(() -> db.runCommand(new Document("find", "c").append("collation", new Document("locale", "simple"))))
                .doesNotThrowAnyException();
        assertRefused(new Document("find", "c").append("collation", new Document("locale", "en").append("strength", 2)), "collation");
    }

    /** A command that carries {@code option} in the place {@code where} names. */
    private static Document commandWith(String where, String option) {
        Object value = valueFor(option);
        return switch (where) {
            case "update statement" -> new Document("update", "c").append("updates", List.of(statement(
                    new Document("q", new Document("none", 1)).append("u", new Document("$set", new Document("z", 1))), option, value)));
            case "delete statement" -> new Document("delete", "c").append("deletes",
                    List.of(statement(new Document("q", new Document("none", 1)).append("limit", 1), option, value)));
            case "index" -> new Document("createIndexes", "c").append("indexes",
                    List.of(statement(new Document("key", new Document("f", 1)).append("name", "f_1"), option, value)));
            default -> statement(new Document(COMMAND_NAMES.getOrDefault(where, where),
                    where.startsWith("list") ? (Object) 1 : "c"), option, value);
        };
    }

    private static final Map<String, String> COMMAND_NAMES = Map.of("findandmodify", "findAndModify", "createindexes",
            "createIndexes", "collmod", "collMod", "listcollections", "listCollections", "listindexes", "listIndexes");

    private static Document statement(Document base, String option, Object value) {
        if (!base.containsKey(option)) {
            base.append(option, value);
        }
        return base;
    }

    private static Object valueFor(String option) {
        return switch (option) {
            case "collation" -> new Document("locale", "simple");
            case "pipeline", "documents", "updates", "deletes", "indexes", "arrayFilters" -> List.of();
            case "filter", "sort", "projection", "query", "fields", "validator", "cursor", "storageEngine", "indexOptionDefaults",
                    "let", "timeseries", "clusteredIndex", "changeStreamPreAndPostImages", "index", "encryptedFields" -> new Document();
            case "capped", "explain", "remove", "new", "upsert", "nameOnly", "authorizedCollections", "dropTarget" -> false;
            case "autoIndexId" -> true;
            case "validationLevel" -> "strict";
            case "validationAction" -> "error";
            case "key" -> "x";
            case "update" -> new Document("$set", new Document("u", 1));
            case "hint", "viewOn", "comment" -> "x";
            default -> 1;
        };
    }

    private static void assertRefused(Document command, String name) {
        MongoCommandException e = tryRun(command);
        assertThat(e).as("%s should be refused: %s", name, command.toJson()).isNotNull();
        assertThat(e.getErrorCode()).as("%s: %s", name, e.getErrorMessage()).isEqualTo(238);
        assertThat(e.getErrorMessage()).contains(name).contains("not implemented by the local Mongo stand-in").contains("mongo:8");
    }

    private static MongoCommandException tryRun(Document command) {
        return catchThrowableOfType(MongoCommandException.class, () -> db.runCommand(command));
    }
}
