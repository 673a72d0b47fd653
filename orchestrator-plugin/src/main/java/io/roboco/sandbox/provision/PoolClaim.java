package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.ClaimSession;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.PoolSeeding;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.ledger.ContainerLedger;
import java.time.Clock;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ready warm-pool container made one agent's: credentials drawn from the plugin's secret source
 * ({@link Engine#claimCredentials}) when its claim session is opened (the container became ready) or, without one, at
 * claim; the agent's user and database made in it ({@link Engine#prepareClaim}, or ahead by the session); the plan's
 * features activated. A failed claim removes the container.
 */
final class PoolClaim {
    private static final Logger log = LoggerFactory.getLogger(ServiceProvisioner.class);

    private final SecretSource secrets;
    private final Clock clock;
    private final ContainerLedger ledger;
    private final Containers containers;
    private final Activation activation;
    private final Liveness liveness;
    private final ClaimTurns turns;

    PoolClaim(
            SecretSource secrets,
            Clock clock,
            ContainerLedger ledger,
            Containers containers,
            Activation activation,
            Liveness liveness,
            ClaimTurns turns) {
        this.secrets = secrets;
        this.clock = clock;
        this.ledger = ledger;
        this.containers = containers;
        this.activation = activation;
        this.liveness = liveness;
        this.turns = turns;
    }

    /**
     * What a later claim of {@code pooled} can open ahead of time, for the claim's credentials drawn now; null when it
     * cannot be opened (the claim draws them and logs in itself).
     */
    ClaimSession openSession(Engine engine, ServiceInstance pooled, boolean seeded) {
        try {
            return open(engine, pooled, seeded);
        } catch (Exception e) {
            log.info(
                    "{} pool container {}: claim session not opened ({}); its claim will log in itself",
                    engine.name(),
                    pooled.containerName(),
                    Redaction.of(String.valueOf(e.getMessage()), pooled.credentials()));
            return null;
        }
    }

    private ClaimSession open(Engine engine, ServiceInstance pooled, boolean seeded) throws Exception {
        ProbeTarget target = ProbeTarget.of(pooled.endpoint(), pooled.credentials());
        if (seeded) {
            PoolSeeding seeding = seeding(engine);
            return seeding.openClaimSession(target, seeding.claimCredentials(pooled.credentials(), engine, secrets));
        }
        return engine.openClaimSession(target, engine.claimCredentials(pooled.credentials(), secrets));
    }

    /**
     * Claims {@code pooled} for {@code agent} on {@code session} (closed here; null: without one). A {@code seeded}
     * container ({@link ServiceProvisioner#startSeededPooled}) is handed over ({@link PoolSeeding}) and not seeded again.
     */
    ServiceInstance claim(ServicePlan plan, ServiceInstance pooled, ClaimSession session, String agent, boolean seeded)
            throws ProvisionException {
        ClaimTurns.Turn turn = turns.claim();
        try (turn) {
            return claimNow(plan, pooled, session, agent, seeded);
        }
    }

    private ServiceInstance claimNow(
            ServicePlan plan, ServiceInstance pooled, ClaimSession session, String agent, boolean seeded)
            throws ProvisionException {
        Engine engine = plan.engine();
        long t0 = System.nanoTime();
        String id = pooled.containerId();
        ledger.enter(id, ContainerLedger.Reason.CLAIMED, agent);
        Credentials credentials = pooled.credentials(); // until the claim's are known: what a failure redacts
        ClaimSession claim = session;
        LiveSession handed = null;
        try {
            if (containers.networks() != null) {
                containers.networks().join(id, agent); // network mode: onto its new owner's network
            } else {
                containers.admit(id, agent); // Kubernetes: its NetworkPolicy admits its new owner
            }
            ProbeTarget target;
            try {
                if (claim == null && seeded) {
                    claim = open(engine, pooled, true);
                }
                credentials = claim != null
                        ? claim.credentials() // drawn when the session was opened; its role may be made already
                        : engine.claimCredentials(pooled.credentials(), secrets);
                target = containers.target(id, pooled.endpoint(), credentials);
                if (claim != null) {
                    claim.claim(target);
                    handed = claim.handOverLiveSession();
                } else {
                    engine.prepareClaim(target);
                }
            } finally {
                if (claim != null) {
                    claim.close();
                }
            }
            long prepared = System.nanoTime();
            Set<AllowedFeature> lacking = new TreeSet<>(plan.features());
            lacking.removeIf(f -> pooled.features().contains(f.name()));
            activation.all(engine, id, credentials, pooled.image(), lacking);
            if (!seeded) {
                activation.seed(plan, target, id);
            }
            ServiceInstance instance = new ServiceInstance(
                    engine.name(),
                    pooled.image(),
                    id,
                    pooled.containerName(),
                    pooled.endpoint(),
                    credentials,
                    plan.featureNames(),
                    clock.instant(),
                    pooled.major(),
                    pooled.limits(),
                    true,
                    pooled.agentEndpoint());
            liveness.hold(engine, instance, handed); // the agent's login made ahead, or one opened in the background
            handed = null;
            log.debug(
                    "{} pool container {} claimed for agent {}: prepareClaim {} ms, activate {} ms",
                    engine.name(),
                    pooled.containerName(),
                    agent,
                    (prepared - t0) / 1_000_000,
                    (System.nanoTime() - prepared) / 1_000_000);
            return instance;
        } catch (FeatureUnavailableException e) {
            closeQuietly(handed);
            containers.remove(id);
            throw new ProvisionException(e.getMessage() + "; container removed", false, null);
        } catch (Exception | Error e) {
            closeQuietly(handed);
            containers.remove(id);
            throw new ProvisionException(
                    StartDiagnosis.what(engine, agent) + " claim of a warm-pool container failed: "
                            + Redaction.of(String.valueOf(e.getMessage()), credentials) + "; container removed",
                    true,
                    null);
        }
    }

    private static void closeQuietly(LiveSession session) {
        if (session != null) {
            session.close();
        }
    }

    private static PoolSeeding seeding(Engine engine) {
        return engine.poolSeeding()
                .orElseThrow(() -> new IllegalStateException(engine.name() + " cannot seed warm-pool containers"));
    }
}
