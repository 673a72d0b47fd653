package io.roboco.sandbox.engine.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.ValidationOptions;
import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.RunningSandbox;
import io.roboco.sandbox.engine.UnknownNameException;
import java.util.ArrayList;
import org.bson.Document;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mongo checkpoints against the local stand-in: documents, a unique index and a validator come back at a rewind on the
 * agent's URL; the agent cannot read its checkpoint's database; an undone switch leaves the data as it was.
 */
class MongoCheckpointsIT {
    private static final Checkpoints CHECKPOINTS =
            new MongoEngine().checkpoints().orElseThrow();

    @BeforeAll
    static void image() {
        EngineImages.requireLocal(MongoEngineIT.IMAGE);
    }

    private static String url(RunningSandbox sandbox) {
        MongoEngine engine = new MongoEngine();
        return engine.env(new Endpoint("127.0.0.1", sandbox.spec.port()), sandbox.credentials)
                .get("ROBOCO_TEST_MONGO_URL");
    }

    @Test
    void rewindBringsBackDocumentsIndexesAndValidatorsAndTheCheckpointIsOutOfReach() throws Exception {
        MongoEngine engine = new MongoEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, MongoEngineIT.IMAGE)) {
            engine.prepareAgent(sandbox.target);
            try (MongoClient client = MongoClients.create(url(sandbox))) {
                MongoDatabase db = client.getDatabase(sandbox.credentials.database());
                db.createCollection(
                        "users",
                        new CreateCollectionOptions()
                                .validationOptions(new ValidationOptions().validator(Filters.exists("email"))));
                db.getCollection("users").createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));
                db.getCollection("users").insertOne(new Document("_id", 1).append("email", "a@x"));
                db.getCollection("orders").insertOne(new Document("_id", 7).append("total", 3));

                CHECKPOINTS.checkpoint(sandbox.target, "before");
                assertThat(CHECKPOINTS.list(sandbox.target))
                        .extracting(Checkpoints.Checkpoint::name)
                        .containsExactly("before");
                assertThatThrownBy(() -> client.getDatabase(sandbox.credentials.database() + "__ck_before")
                                .getCollection("users")
                                .find()
                                .first())
                        .as("the agent has no role on its checkpoint's database")
                        .isInstanceOf(MongoCommandException.class);

                db.getCollection("users").insertOne(new Document("_id", 2).append("email", "b@x"));
                db.getCollection("orders").drop();
                db.getCollection("later").insertOne(new Document("x", 1));

                CHECKPOINTS.rewind(sandbox.target, "before");
                assertThat(db.listCollectionNames().into(new ArrayList<>()))
                        .containsExactlyInAnyOrder("users", "orders");
                assertThat(db.getCollection("users").find().into(new ArrayList<>()))
                        .containsExactly(new Document("_id", 1).append("email", "a@x"));
                assertThat(db.getCollection("orders").countDocuments()).isEqualTo(1);
                assertThatThrownBy(() ->
                                db.getCollection("users").insertOne(new Document("_id", 3).append("email", "a@x")))
                        .as("the unique index came back")
                        .hasMessageContaining("11000");
                assertThatThrownBy(() -> db.getCollection("users").insertOne(new Document("_id", 4)))
                        .as("the validator came back")
                        .hasMessageContaining("121");
            }
        }
    }

    @Test
    void anUndoneSwitchLeavesTheDataAsItWas() throws Exception {
        MongoEngine engine = new MongoEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, MongoEngineIT.IMAGE)) {
            engine.prepareAgent(sandbox.target);
            try (MongoClient client = MongoClients.create(url(sandbox))) {
                MongoDatabase db = client.getDatabase(sandbox.credentials.database());
                CHECKPOINTS.checkpoint(sandbox.target, "empty");
                db.getCollection("c").insertOne(new Document("_id", "later"));
                try (Checkpoints.PreparedRewind prepared = CHECKPOINTS.prepareRewind(sandbox.target, "empty")) {
                    prepared.commit();
                    assertThat(db.getCollection("c").countDocuments()).isZero();
                    prepared.undo();
                }
                assertThat(db.getCollection("c").find().into(new ArrayList<>()))
                        .containsExactly(new Document("_id", "later"));
                assertThatThrownBy(() -> CHECKPOINTS.prepareRewind(sandbox.target, "nope"))
                        .isInstanceOf(UnknownNameException.class)
                        .hasMessageContaining("there are: empty");
            }
        }
    }
}
