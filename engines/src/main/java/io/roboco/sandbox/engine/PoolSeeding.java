package io.roboco.sandbox.engine;

/**
 * How an engine seeds a warm-pool container before any agent claims it, and hands what was seeded to the agent that
 * does ({@link Engine#poolSeeding}). The seed runs as a <em>seeder</em>: a login role of its own, in a database of its
 * own inside the pool container. Once the seed is in, the seeder can no longer log in. The claim makes the agent's
 * role, gives it the seeded database and every object the seeder owned, and drops the seeder, so nothing of the
 * pool's own setup (no seeder object, grant or credential) reaches the agent.
 */
public interface PoolSeeding {
    /**
     * The seeder's credentials in a pool container started with {@code pooled}: the admin pair stays, the user is the
     * seeder role and the database the one it seeds (the claiming agent's database later on).
     */
    Credentials seeder(Credentials pooled, SecretSource secrets);

    /** Creates the seeder's login role and its database, through the admin credential of {@code seeder}. */
    void prepareSeeder(ProbeTarget seeder) throws Exception;

    /** The seed is in: the seeder can no longer log in, and its sessions are ended. */
    void retireSeeder(ProbeTarget seeder) throws Exception;

    /**
     * Fresh credentials for the agent claiming a seeded container: the admin pair stays, user and password are new,
     * made now; the database is the seeded one.
     */
    default Credentials claimCredentials(Credentials seeder, Engine engine, SecretSource secrets) {
        Credentials fresh = engine.newCredentials(secrets);
        return new Credentials(
                seeder.adminUser(), seeder.adminPassword(), fresh.user(), fresh.password(), seeder.database());
    }

    /**
     * What the claim of a seeded container can open ahead of time (off the agent's path); its
     * {@link ClaimSession#claim} makes the agent's role from the target's credentials and hands it the seeded database
     * and everything in it, then proves the agent can log in. {@code seeder} carries the seeder's credentials;
     * {@code claim} the claim's ({@link #claimCredentials}, drawn now).
     */
    ClaimSession openClaimSession(ProbeTarget seeder, Credentials claim) throws Exception;
}
