package io.roboco.sandbox.pool;

import io.roboco.sandbox.provision.ServicePlan;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which seeded pools the warm pool keeps ({@link PoolSizes#seeded} ready containers each): one per project and image,
 * for the seed and features its sandboxes ask for ({@link SeedRecipe}). A project's pool is made when it is primed
 * (the project saved, the server started: {@code WarmPool#prime}) or by the first claim that finds none, replaced when
 * a plan presents another seed (the old one's ready containers are removed, never
 * served), narrowed when a claim asks for fewer features than its containers carry, and parked for
 * {@link #RETRY_AFTER} when its seed fails. After a restart a pool can be re-made from its journaled containers
 * ({@link #adopt}) before any claim says what its recipe is: it serves the first claim presenting the same seed, which
 * also gives it its recipe again (until then nothing is started for it).
 */
final class SeededPools {
    private static final Logger log = LoggerFactory.getLogger(WarmPool.class);
    /** How long a seeded pool whose seed failed waits before a claim may start it again. */
    static final Duration RETRY_AFTER = Duration.ofMinutes(1);

    private final int size;
    private final Shelves shelves;
    private final Consumer<String> remove;
    /**
     * Recipe per pool key (none yet for a re-adopted pool), the pool key per project-and-image slot, and until when
     * (nanoTime) a failed one is parked.
     */
    private final Map<String, SeedRecipe> recipes = new ConcurrentHashMap<>();

    private final Map<String, String> slots = new ConcurrentHashMap<>();
    private final Map<String, Long> parkedUntil = new ConcurrentHashMap<>();

    /** @param remove removes a container ({@code ServiceProvisioner#removeQuietly}) */
    SeededPools(int size, Shelves shelves, Consumer<String> remove) {
        this.size = size;
        this.shelves = shelves;
        this.remove = remove;
    }

    /**
     * The pool key a seeded {@code plan} of {@code project} claims from; null when no seeded pool can serve it (none
     * kept, no project, an engine that cannot seed ahead, or a pool made just now: the caller starts cold).
     */
    String keyFor(ServicePlan plan, String project) {
        if (size == 0 || project == null || plan.engine().poolSeeding().isEmpty()) {
            return null;
        }
        SeedRecipe wanted = SeedRecipe.of(project, plan);
        String key = wanted.key();
        synchronized (recipes) {
            String current = slots.get(wanted.slot());
            SeedRecipe recipe = recipes.get(key);
            if (key.equals(current) && recipe == null) { // re-adopted after a restart: this claim says what it makes
                recipes.put(key, wanted);
                dropReadyWithout(key, wanted.features());
                recipe = wanted;
            }
            if (!key.equals(current)) {
                if (current != null) {
                    discard(current);
                }
                register(wanted);
                return null;
            }
            if (!plan.featureNames().containsAll(recipe.features())) {
                SeedRecipe narrowed = recipe.narrowedTo(plan);
                recipes.put(key, narrowed);
                dropReadyWithout(key, narrowed.features());
            }
            Long parked = parkedUntil.get(key);
            if (parked != null && System.nanoTime() - parked > 0) {
                parkedUntil.remove(key);
            }
        }
        return key;
    }

    /**
     * Makes room for a container a previous process journaled under the seeded pool {@code key}: true when seeded
     * pools are kept and the project has no other seed's pool (the caller then shelves the container).
     */
    boolean adopt(String key) {
        if (size == 0) {
            return false;
        }
        synchronized (recipes) {
            String slot = SeedRecipe.slotOf(key);
            String current = slots.putIfAbsent(slot, key);
            if (current != null && !current.equals(key)) {
                return false;
            }
            shelves.open(key, size);
            return true;
        }
    }

    /**
     * Discards every seeded pool of {@code project} (every project's, when null) whose key is not in {@code keep}: its
     * seed was removed, its image (major) changed, or the project is gone. Returns how many pools went.
     */
    int retain(String project, Predicate<String> keep) {
        int gone = 0;
        synchronized (recipes) {
            for (String key : List.copyOf(slots.values())) {
                if ((project == null || SeedRecipe.projectOf(key).equals(project)) && !keep.test(key)) {
                    discard(key);
                    gone++;
                }
            }
        }
        return gone;
    }

    /** The recipe of a seeded pool key; null for a plain key, a discarded pool or one re-adopted and not yet claimed from. */
    SeedRecipe recipe(String key) {
        return recipes.get(key);
    }

    /** The pool's seed failed: nothing more is started for it until a claim after {@link #RETRY_AFTER}. */
    void park(String key) {
        parkedUntil.put(key, System.nanoTime() + RETRY_AFTER.toNanos());
    }

    boolean parked(String key) {
        return parkedUntil.containsKey(key);
    }

    /** Ready seeded containers of {@code project}'s pools (null: of every project) right now. */
    int idle(String project) {
        int n = 0;
        for (String key : slots.values()) {
            n += project == null || SeedRecipe.projectOf(key).equals(project) ? shelves.size(key) : 0;
        }
        return n;
    }

    private void register(SeedRecipe recipe) {
        recipes.put(recipe.key(), recipe);
        slots.put(recipe.slot(), recipe.key());
        shelves.open(recipe.key(), size);
        log.info(
                "seeded warm pool {} for project {} ({}): keeping {} ready container(s)",
                recipe.digest(),
                recipe.project(),
                recipe.plan().image().describe(),
                size);
    }

    /** The pool goes: nothing more is started for it and its ready containers are removed (a start under way removes its own). */
    private void discard(String key) {
        recipes.remove(key);
        slots.remove(SeedRecipe.slotOf(key), key);
        parkedUntil.remove(key);
        ConcurrentLinkedDeque<Shelves.Pooled> ready = shelves.remove(key);
        int removed = 0;
        for (Shelves.Pooled pooled; ready != null && (pooled = ready.pollFirst()) != null; removed++) {
            pooled.closeSession();
            remove.accept(pooled.instance().containerId());
        }
        log.info(
                "seeded warm pool {} discarded (the project's seed or image changed, or it has none now): {} ready container(s) removed",
                key,
                removed);
    }

    private void dropReadyWithout(String key, Set<String> features) {
        ConcurrentLinkedDeque<Shelves.Pooled> ready = shelves.ready(key);
        for (Shelves.Pooled pooled : ready) {
            if (!features.containsAll(pooled.instance().features()) && ready.remove(pooled)) {
                pooled.closeSession();
                remove.accept(pooled.instance().containerId());
            }
        }
    }
}
