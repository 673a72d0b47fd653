package io.roboco.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.Plans;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.testkit.AgentSessions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real claims from a warm pool of the local Postgres image: each claim's credentials are made at claim
 * time, differ from the other claim's, own their database, and do not open the other agent's database.
 */
class WarmPoolIT {
    private static final String INSTANCE =
            "it-pool-" + UUID.randomUUID().toString().substring(0, 8);
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();
    private static ContainerRuntime runtime;
    private static ServiceProvisioner provisioner;
    private static WarmPool pool;

    @BeforeAll
    static void fillPool() throws InterruptedException {
        runtime = LocalImages.requireDockerAndImages();
        provisioner = new ServiceProvisioner(
                runtime,
                ProvisionSettings.defaults(INSTANCE)
                        .withImages(LocalImages.IMAGES)
                        .withReadyTimeout(Duration.ofSeconds(90)),
                SecretSource.secure(),
                Clock.systemUTC());
        pool = new WarmPool(REGISTRY, provisioner, new PoolSizes(Map.of("postgres", 2))).start();
        awaitReady(2);
    }

    @AfterAll
    static void cleanUp() {
        if (pool != null) {
            pool.close();
        }
        runtime.list(SandboxLabels.ofInstance(INSTANCE)).forEach(c -> runtime.remove(c.id()));
        runtime.close();
    }

    @Test
    void twoClaimsGetFreshDifferentCredentialsAndNeitherOpensTheOthersDatabase() throws Exception {
        long t0 = System.nanoTime();
        ServiceInstance first = pool.claim(Plans.of(provisioner.settings(), REGISTRY.require("postgres")), "dev-1")
                .orElseThrow();
        long claimMillis = (System.nanoTime() - t0) / 1_000_000;
        ServiceInstance second = pool.claim(
                        Plans.of(provisioner.settings(), REGISTRY.require("postgres"), "pg_trgm"), "dev-2")
                .orElseThrow();
        System.out.println(
                "[figure] postgres pool claim (made ahead: credential + ownership at claim): " + claimMillis + " ms");

        assertThat(first.credentials().user()).isNotEqualTo(second.credentials().user());
        assertThat(first.credentials().password())
                .isNotEqualTo(second.credentials().password());
        assertThat(first.credentials().database())
                .isNotEqualTo(second.credentials().database());
        assertThat(first.credentials().password())
                .isNotEqualTo(first.credentials().adminPassword());

        try (Connection c = login(
                        second,
                        second.credentials().user(),
                        second.credentials().password());
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int)"); // owns its database and its public schema
            try (ResultSet rs = s.executeQuery(
                    "SELECT rolsuper, (SELECT datdba::regrole::text FROM pg_database WHERE datname = current_database())"
                            + " FROM pg_roles WHERE rolname = current_user")) {
                rs.next();
                assertThat(rs.getBoolean(1)).as("agent is a superuser").isFalse();
                assertThat(rs.getString(2)).isEqualTo(second.credentials().user());
            }
            try (ResultSet rs = s.executeQuery("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'")) {
                assertThat(rs.next()).as("pg_trgm activated at claim").isTrue();
            }
        }
        assertThatThrownBy(() -> login(
                                second,
                                first.credentials().user(),
                                first.credentials().password())
                        .close())
                .isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> login(
                                first,
                                second.credentials().user(),
                                second.credentials().password())
                        .close())
                .isInstanceOf(SQLException.class);
        assertThat(runtime.isRunning(first.containerId())).isTrue();
        provisioner.removeQuietly(first.containerId());
        provisioner.removeQuietly(second.containerId());
    }

    /**
     * Issue 21: the claim's role and the login that proves it are made ahead, when the container is ready; a session
     * opened again on the same idle container (a restarted process re-adopting it) drops the earlier pending role, so
     * after the claim the container has exactly one agent role: the claimed one, with only the fresh password, owning
     * its database and {@code public}.
     */
    @Test
    void aClaimMadeAheadLeavesExactlyTheClaimedRoleWithItsFreshPassword() throws Exception {
        Engine postgres = REGISTRY.require("postgres");
        ServiceInstance pooled = provisioner.startPooled(postgres);
        try {
            ClaimSession abandoned = provisioner.openClaimSession(postgres, pooled); // the crashed process's
            ClaimSession session = provisioner.openClaimSession(postgres, pooled); // the re-adopting process's
            assertThat(abandoned).isNotNull();
            assertThat(session).isNotNull();
            abandoned.close();

            long t0 = System.nanoTime();
            ServiceInstance claimed =
                    provisioner.claim(Plans.of(provisioner.settings(), postgres), pooled, session, "dev-3");
            System.out.println("[figure] postgres pool claim made ahead (credential + ownership, one round trip): "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms");

            assertThat(claimed.credentials().database())
                    .isEqualTo(pooled.credentials().database());
            try (Connection c = login(
                            claimed,
                            claimed.credentials().user(),
                            claimed.credentials().password());
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE t (id int)"); // owns its database and its public schema
                try (ResultSet rs = s.executeQuery("SELECT rolname FROM pg_roles WHERE rolname LIKE 'agent%'")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo(claimed.credentials().user());
                    assertThat(rs.next())
                            .as("no other (pending) agent role is left")
                            .isFalse();
                }
                try (ResultSet rs =
                        s.executeQuery("SELECT datdba::regrole::text, (SELECT nspowner::regrole::text FROM pg_namespace"
                                + " WHERE nspname = 'public') FROM pg_database WHERE datname = current_database()")) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo(claimed.credentials().user());
                    assertThat(rs.getString(2)).isIn(claimed.credentials().user(), "pg_database_owner");
                }
            }
        } finally {
            provisioner.removeQuietly(pooled.containerId());
        }
    }

    /**
     * Issue 21: the login the pool made ahead becomes the claimed sandbox's liveness session, so a claim makes no second
     * agent login (a burst of claims made one more SCRAM login and server backend each): after the claim and a liveness
     * check, the agent's role has exactly one session in its container, opened before the claim.
     */
    @Test
    void theLoginMadeAheadIsTheClaimedSandboxsLivenessSession() throws Exception {
        awaitReady(1);
        Engine postgres = REGISTRY.require("postgres");
        double claimStarted = System.currentTimeMillis() / 1000.0; // the container shares the host's clock
        ServiceInstance claimed =
                pool.claim(Plans.of(provisioner.settings(), postgres), "dev-3").orElseThrow();
        try {
            assertThat(provisioner.isLive(postgres, claimed)).isTrue();
            assertThat(provisioner.isLive(postgres, claimed)).isTrue();
            AgentSessions.assertOnlyOne(
                    claimed, "the login made ahead, now held for liveness", claimStarted, "the claim");
        } finally {
            provisioner.removeQuietly(claimed.containerId());
        }
    }

    /** Until the pool holds {@code n} ready Postgres containers; at most 150 s. */
    private static void awaitReady(int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
        while (pool.idle("postgres") < n) {
            assertThat(System.nanoTime())
                    .as(n + " ready pool container(s) within 150 s")
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static Connection login(ServiceInstance target, String user, String password) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + target.endpoint().host() + ":"
                        + target.endpoint().port() + "/" + target.credentials().database()
                        + "?sslmode=disable&connectTimeout=5",
                user,
                password);
    }
}
