package io.roboco.sandbox.mongocompat.auth;

import io.roboco.sandbox.mongocompat.scram.ScramIterations;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/** The server's users, in memory like its data (mongod keeps them in {@code admin.system.users}). Thread-safe. */
public final class UserStore {
    private final Map<String, User> users = new ConcurrentHashMap<>();
    private final ScramIterations iterations;

    /** A store whose new credentials get mongod's default iteration counts. */
    public UserStore() {
        this(ScramIterations.DEFAULTS);
    }

    public UserStore(ScramIterations iterations) {
        this.iterations = iterations;
    }

    /** The iteration counts new credentials get ({@code createUser}, {@code updateUser} with a password). */
    public ScramIterations iterations() {
        return iterations;
    }

    public Optional<User> find(String db, String name) {
        return Optional.ofNullable(users.get(User.key(db, name)));
    }

    /** Adds {@code user}; false when {@code name@db} exists already. */
    public boolean add(User user) {
        return users.putIfAbsent(user.key(), user) == null;
    }

    /** Replaces {@code name@db} through {@code change}; false when there is no such user. */
    public boolean update(String db, String name, UnaryOperator<User> change) {
        return users.computeIfPresent(User.key(db, name), (k, u) -> change.apply(u)) != null;
    }

    public boolean remove(String db, String name) {
        return users.remove(User.key(db, name)) != null;
    }

    public List<User> inDatabase(String db) {
        return users.values().stream().filter(u -> u.db().equals(db)).sorted((a, b) -> a.name().compareTo(b.name())).toList();
    }

    public Collection<User> all() {
        return users.values().stream().sorted((a, b) -> a.key().compareTo(b.key())).toList();
    }

    public boolean isEmpty() {
        return users.isEmpty();
    }
}
