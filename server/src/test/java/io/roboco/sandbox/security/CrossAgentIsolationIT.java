package io.roboco.sandbox.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One agent's credentials cannot open another agent's sandbox: agent A's Postgres role and password
 * are refused by agent B's Postgres (on B's database and on A's database name), A's Redis ACL user is
 * refused by B's Redis, A's Mongo user is refused by B's Mongo (on B's database and on A's, with A's
 * own authSource and with B's), A's password does not open B's users, and neither Redis nor Mongo
 * serves data without credentials.
 */
class CrossAgentIsolationIT {
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", null));

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void oneAgentsCredentialsDoNotOpenAnotherAgentsSandbox() throws Exception {
        ApiClient api = SERVER.api();
        api.working("iso-a", "iso", "[\"postgres\",\"redis\",\"mongo\"]");
        api.working("iso-b", "iso", "[\"postgres\",\"redis\",\"mongo\"]");
        api.working("iso-c", "other", "[\"postgres\",\"redis\",\"mongo\"]");
        Map<String, Map<String, Map<String, String>>> grants = new TreeMap<>();
        for (String agent : List.of("iso-a", "iso-b", "iso-c")) {
            ApiClient.Reply r = api.requestSandboxRetrying(agent, 3);
            assertThat(r.ok()).as("%s", r).isTrue();
            grants.put(agent, r.grants());
            r.grants()
                    .forEach((service, env) -> assertThat(Probe.tryUse(service, env))
                            .as(agent + " " + service + " own")
                            .isNull());
        }
        int attempts = 0;
        List<String> opened = new ArrayList<>();
        for (String a : grants.keySet()) {
            for (String b : grants.keySet()) {
                if (a.equals(b)) {
                    continue;
                }
                Map<String, String> pa = grants.get(a).get("postgres");
                Map<String, String> pb = grants.get(b).get("postgres");
                String port = pb.get("ROBOCO_TEST_DB_PORT");
                for (String db : List.of(pb.get("ROBOCO_TEST_DB_NAME"), pa.get("ROBOCO_TEST_DB_NAME"), "postgres")) {
                    attempts++;
                    String failure = attempt(() -> Probe.postgres(
                            "127.0.0.1", port, db, pa.get("ROBOCO_TEST_DB_USER"), pa.get("ROBOCO_TEST_DB_PASSWORD")));
                    if (failure == null) {
                        opened.add(a + "'s postgres credentials opened " + b + "'s postgres (database " + db + ")");
                    } else {
                        assertThat(failure)
                                .as("refused by authentication, not by a dead server")
                                .contains("authentication");
                    }
                }
                attempts++;
                if (attempt(() -> Probe.postgres(
                                "127.0.0.1",
                                port,
                                pb.get("ROBOCO_TEST_DB_NAME"),
                                pb.get("ROBOCO_TEST_DB_USER"),
                                pa.get("ROBOCO_TEST_DB_PASSWORD")))
                        == null) {
                    opened.add(a + "'s password opened " + b + "'s postgres as " + b + "'s role");
                }
                Map<String, String> ra = grants.get(a).get("redis");
                Map<String, String> rb = grants.get(b).get("redis");
                attempts++;
                String failure = attempt(() -> Probe.redis(
                        "127.0.0.1",
                        rb.get("ROBOCO_TEST_REDIS_PORT"),
                        ra.get("ROBOCO_TEST_REDIS_USER"),
                        ra.get("ROBOCO_TEST_REDIS_PASSWORD")));
                if (failure == null) {
                    opened.add(a + "'s redis credentials opened " + b + "'s redis");
                } else {
                    assertThat(failure)
                            .as("refused by authentication")
                            .containsAnyOf("WRONGPASS", "invalid username-password", "NOAUTH");
                }
                attempts++;
                if (attempt(() -> Probe.redis(
                                "127.0.0.1",
                                rb.get("ROBOCO_TEST_REDIS_PORT"),
                                rb.get("ROBOCO_TEST_REDIS_USER"),
                                ra.get("ROBOCO_TEST_REDIS_PASSWORD")))
                        == null) {
                    opened.add(a + "'s password opened " + b + "'s redis as " + b + "'s user");
                }
                Map<String, String> ma = grants.get(a).get("mongo");
                Map<String, String> mb = grants.get(b).get("mongo");
                String mport = mb.get("ROBOCO_TEST_MONGO_PORT");
                for (String db : List.of(mb.get("ROBOCO_TEST_MONGO_NAME"), ma.get("ROBOCO_TEST_MONGO_NAME"))) {
                    for (String source : List.of(ma.get("ROBOCO_TEST_MONGO_NAME"), mb.get("ROBOCO_TEST_MONGO_NAME"))) {
                        attempts++;
                        String mfailure = attempt(() -> Probe.mongo(
                                "127.0.0.1",
                                mport,
                                db,
                                ma.get("ROBOCO_TEST_MONGO_USER"),
                                ma.get("ROBOCO_TEST_MONGO_PASSWORD"),
                                source));
                        if (mfailure == null) {
                            opened.add(a + "'s mongo credentials opened " + b + "'s mongo (database " + db
                                    + ", authSource " + source + ")");
                        } else {
                            assertThat(mfailure)
                                    .as("refused by authentication")
                                    .startsWith("MongoSecurityException: Exception authenticating");
                        }
                    }
                }
                attempts++;
                if (attempt(() -> Probe.mongo(
                                "127.0.0.1",
                                mport,
                                mb.get("ROBOCO_TEST_MONGO_NAME"),
                                mb.get("ROBOCO_TEST_MONGO_USER"),
                                ma.get("ROBOCO_TEST_MONGO_PASSWORD"),
                                mb.get("ROBOCO_TEST_MONGO_NAME")))
                        == null) {
                    opened.add(a + "'s password opened " + b + "'s mongo as " + b + "'s user");
                }
            }
            // No credentials at all.
            Map<String, String> rb = grants.get(a).get("redis");
            attempts++;
            if (attempt(() -> Probe.redis("127.0.0.1", rb.get("ROBOCO_TEST_REDIS_PORT"), null, null)) == null) {
                opened.add(a + "'s redis answers without a password");
            }
            Map<String, String> mOwn = grants.get(a).get("mongo");
            attempts++;
            String anonymous = attempt(() -> Probe.mongo(
                    "127.0.0.1",
                    mOwn.get("ROBOCO_TEST_MONGO_PORT"),
                    mOwn.get("ROBOCO_TEST_MONGO_NAME"),
                    null,
                    null,
                    null));
            if (anonymous == null) {
                opened.add(a + "'s mongo serves its database without credentials");
            } else {
                assertThat(anonymous).as("refused as Unauthorized").contains("requires authentication");
            }
        }
        Fixtures.figure("CrossAgentIsolationIT cross-agent logins that succeeded: " + opened.size() + " of " + attempts
                + " attempts (postgres, redis, mongo)");
        assertThat(opened).isEmpty();
    }

    private interface Attempt {
        void run() throws Exception;
    }

    private static String attempt(Attempt attempt) {
        try {
            attempt.run();
            return null;
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }
}
