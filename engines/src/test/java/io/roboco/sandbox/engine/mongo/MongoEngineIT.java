package io.roboco.sandbox.engine.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoSecurityException;
import io.roboco.sandbox.engine.DockerCli;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineImages;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.RunningSandbox;
import io.roboco.sandbox.engine.UnknownNameException;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The MongoDB engine against a real container on 127.0.0.1 (host network, the sandbox limits and security
 * options), driven only through the {@link Engine} SPI: spec → docker run → readiness → prepareAgent →
 * activate → what the agent can and cannot do → liveness → removal. The image defaults to the locally
 * built test image; override with {@code -Droboco.it.image.mongo=...}.
 *
 * <p>Standard drivers with the handed-out URL, and the refusals, are {@link MongoDriversIT}.
 */
class MongoEngineIT {
    static final String IMAGE = System.getProperty("roboco.it.image.mongo", "roboco-sandbox/mongo-compat:3");

    @BeforeAll
    static void dockerAndImageArePresent() {
        EngineImages.requireLocal(IMAGE);
    }

    @Test
    void mongoAgentIsAReadWriteUserOfItsOwnDatabaseOnly() throws Exception {
        MongoEngine engine = new MongoEngine();
        try (RunningSandbox sandbox = RunningSandbox.start(engine, IMAGE)) {
            System.out.println(sandbox);
            long t0 = System.nanoTime();
            engine.prepareAgent(sandbox.target);
            System.out.printf("mongo prepareAgent %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            String db = sandbox.credentials.database();
            MongoSessions.run(
                    sandbox.target,
                    Login.AGENT,
                    db,
                    new Document("insert", "notes").append("documents", List.of(new Document("body", "hello"))));
            Document found = MongoSessions.run(sandbox.target, Login.AGENT, db, new Document("find", "notes"));
            assertThat(found.toJson()).contains("hello");
            Document users = MongoSessions.run(
                    sandbox.target, Login.ADMIN, db, new Document("usersInfo", sandbox.credentials.user()));
            assertThat(users.toJson()).contains("\"role\": \"readWrite\", \"db\": \"" + db + "\"");
            for (String other : List.of("admin", "sandbox_other")) {
                assertThatThrownBy(
                                () -> MongoSessions.run(sandbox.target, Login.AGENT, other, new Document("find", "x")))
                        .as(other)
                        .isInstanceOf(MongoCommandException.class)
                        .hasMessageContaining("not authorized");
            }
            assertThatThrownBy(() -> MongoSessions.run(
                            sandbox.target,
                            Login.AGENT,
                            db,
                            new Document("createUser", "x").append("pwd", "y").append("roles", List.of("readWrite"))))
                    .hasMessageContaining("not authorized");
            // Neither the createUser (with the password) nor anything else with a secret reaches the logs.
            assertThat(DockerCli.logTail(sandbox.id))
                    .doesNotContain(sandbox.credentials.password())
                    .doesNotContain(sandbox.credentials.adminPassword());
            long t1 = System.nanoTime();
            engine.liveness().check(sandbox.target);
            System.out.printf("mongo liveness %d ms%n", (System.nanoTime() - t1) / 1_000_000);
            assertThatThrownBy(() -> engine.liveness()
                            .check(sandbox.withAgentPassword("wrong" + sandbox.credentials.password())))
                    .isInstanceOf(MongoSecurityException.class);
            assertThatCode(() -> Features.require(engine, "search")).isInstanceOf(UnknownNameException.class);
        }
    }
}
