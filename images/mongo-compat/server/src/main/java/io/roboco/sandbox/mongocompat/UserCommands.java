package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import io.roboco.sandbox.mongocompat.auth.Action;
import io.roboco.sandbox.mongocompat.auth.BuiltinRole;
import io.roboco.sandbox.mongocompat.auth.RoleGrant;
import io.roboco.sandbox.mongocompat.auth.User;
import io.roboco.sandbox.mongocompat.auth.UserStore;
import io.roboco.sandbox.mongocompat.scram.ScramCredential;
import io.roboco.sandbox.mongocompat.scram.ScramIterations;
import io.roboco.sandbox.mongocompat.scram.ScramMechanism;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * mongod's user management commands on the stand-in's {@link UserStore}: {@code createUser},
 * {@code updateUser}, {@code dropUser}, {@code dropAllUsersFromDatabase} and {@code usersInfo}. Users belong
 * to the database the command runs on (the drivers' {@code authSource}). The password is turned into SCRAM
 * credentials at once and dropped; it is never logged or echoed (errors name fields, not values).
 *
 * <p>{@code caller} is null when access control is off (no root user configured): then every command is allowed.
 */
final class UserCommands {
    private final UserStore users;

    UserCommands(UserStore users) {
        this.users = users;
    }

    Document createUser(User caller, String db, Document command) {
        String name = nameField(command, "createUser");
        requireUserAdmin(caller, db, "createUser");
        String password = passwordField(command, true);
        List<RoleGrant> roles = rolesField(command, db, true);
        roles.forEach(grant -> requireUserAdmin(caller, grant.db(), "createUser"));
        Set<ScramMechanism> mechanisms = mechanismsField(command, Set.of(ScramMechanism.values()));
        User user = new User(UUID.randomUUID(), name, db, roles, credentials(mechanisms, name, password, users.iterations()), customData(command));
        if (!users.add(user)) {
            throw MongoErrors.error(MongoErrors.USER_EXISTS, "Location51003", "User \"" + name + "@" + db + "\" already exists");
        }
        return ok();
    }

    Document updateUser(User caller, String db, Document command) {
        String name = nameField(command, "updateUser");
        requireUserAdmin(caller, db, "updateUser");
        User existing = users.find(db, name).orElseThrow(() -> notFound(name, db));
        String password = passwordField(command, false);
        List<RoleGrant> roles = command.containsKey("roles") ? rolesField(command, db, true) : existing.roles();
        if (command.containsKey("roles")) {
            roles.forEach(grant -> requireUserAdmin(caller, grant.db(), "updateUser"));
        }
        Set<ScramMechanism> mechanisms = mechanismsField(command, existing.credentials().keySet());
        if (password == null && !existing.credentials().keySet().containsAll(mechanisms)) {
            throw MongoErrors.badValue("mechanisms field must be a subset of previously set mechanisms");
        }
        if (password == null && !command.containsKey("roles") && !command.containsKey("mechanisms") && !command.containsKey("customData")) {
            throw MongoErrors.badValue("Must specify at least one field to update in updateUser");
        }
        Map<ScramMechanism, ScramCredential> credentials = new EnumMap<>(ScramMechanism.class);
        if (password != null) {
            credentials.putAll(credentials(mechanisms, name, password, users.iterations()));
        } else {
            existing.credentials().forEach((m, c) -> {
                if (mechanisms.contains(m)) {
                    credentials.put(m, c);
                }
            });
        }
        Map<String, Object> customData = command.containsKey("customData") ? customData(command) : existing.customData();
        User updated = new User(existing.id(), name, db, roles, credentials, customData);
        if (!users.update(db, name, u -> updated)) {
            throw notFound(name, db);
        }
        return ok();
    }

    Document dropUser(User caller, String db, Document command) {
        String name = nameField(command, "dropUser");
        requireUserAdmin(caller, db, "dropUser");
        if (!users.remove(db, name)) {
            throw notFound(name, db);
        }
        return ok();
    }

    Document dropAllUsersFromDatabase(User caller, String db) {
        requireUserAdmin(caller, db, "dropAllUsersFromDatabase");
        int n = 0;
        for (User u : users.inDatabase(db)) {
            if (users.remove(db, u.name())) {
                n++;
            }
        }
        Document reply = new Document("n", n);
        Utils.markOkay(reply);
        return reply;
    }

    /**
     * {@code usersInfo: 1 | "name" | {user, db} | [..] | {forAllDBs: true}}. A user may always see itself; others
     * need {@code userAdmin} on their database ({@code forAllDBs}: on every database). Credentials are never shown.
     */
    Document usersInfo(User caller, String db, Document command) {
        Object spec = command.get("usersInfo");
        List<User> found = new ArrayList<>();
        if (spec instanceof Document d && Utils.isTrue(d.get("forAllDBs"))) {
            if (caller != null && !caller.mayEverywhere(Action.USER_ADMIN)) {
                throw notAuthorized(db, "usersInfo");
            }
            found.addAll(users.all());
        } else if (spec instanceof Number) {
            requireUserAdmin(caller, db, "usersInfo");
            found.addAll(users.inDatabase(db));
        } else {
            List<?> specs = spec instanceof List<?> list ? list : List.of(spec == null ? "" : spec);
            for (Object one : specs) {
                String userDb = db;
                String name;
                if (one instanceof String s) {
                    name = s;
                } else if (one instanceof Document d && d.get("user") instanceof String u && d.get("db") instanceof String udb) {
                    name = u;
                    userDb = udb;
                } else {
                    throw MongoErrors.badValue("User name must be either a string or an object with user and db fields");
                }
                boolean self = caller != null && caller.name().equals(name) && caller.db().equals(userDb);
                if (!self) {
                    requireUserAdmin(caller, userDb, "usersInfo");
                }
                users.find(userDb, name).ifPresent(found::add);
            }
        }
        List<Document> out = found.stream().map(UserCommands::describe).toList();
        Document reply = new Document("users", out);
        Utils.markOkay(reply);
        return reply;
    }

    // --- fields ------------------------------------------------------------------------------------

    private static String nameField(Document command, String field) {
        Object value = command.get(field);
        if (!(value instanceof String name)) {
            throw MongoErrors.typeMismatch("BSON field '" + field + "." + field + "' is the wrong type, expected type 'string'");
        }
        if (name.isEmpty() || name.indexOf('\0') >= 0) {
            throw MongoErrors.badValue("User names must be non-empty and may not contain NUL");
        }
        return name;
    }

    private static String passwordField(Document command, boolean required) {
        Object value = command.get("pwd");
        if (value == null) {
            if (required) {
                throw MongoErrors.badValue("Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db");
            }
            return null;
        }
        if (!(value instanceof String password)) {
            throw MongoErrors.typeMismatch("BSON field 'pwd' is the wrong type, expected type 'string'");
        }
        if (password.isEmpty()) {
            throw MongoErrors.badValue("User passwords must not be empty");
        }
        Object digest = command.get("digestPassword");
        if (digest != null && !Utils.isTrue(digest)) {
            throw MongoErrors.badValue("Use of SCRAM-SHA-256 requires undigested passwords; digestPassword: false is not supported");
        }
        return password;
    }

    private static List<RoleGrant> rolesField(Document command, String db, boolean required) {
        Object value = command.get("roles");
        if (value == null && !required) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw MongoErrors.badValue("\"roles\" field must be an array");
        }
        List<RoleGrant> grants = new ArrayList<>();
        for (Object item : list) {
            RoleGrant grant;
            if (item instanceof String role) {
                grant = new RoleGrant(role, db);
            } else if (item instanceof Document d && d.get("role") instanceof String role && d.get("db") instanceof String roleDb) {
                grant = new RoleGrant(role, roleDb);
            } else {
                throw MongoErrors.badValue("role names must be either strings or objects with role and db fields");
            }
            if (BuiltinRole.of(grant).isEmpty()) {
                throw MongoErrors.error(MongoErrors.ROLE_NOT_FOUND, "RoleNotFound", "Could not find role: " + grant);
            }
            grants.add(grant);
        }
        return grants;
    }

    private static Set<ScramMechanism> mechanismsField(Document command, Set<ScramMechanism> otherwise) {
        Object value = command.get("mechanisms");
        if (value == null) {
            return otherwise;
        }
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            throw MongoErrors.badValue("mechanisms field must be a non-empty array of strings");
        }
        Set<ScramMechanism> mechanisms = new LinkedHashSet<>();
        for (Object item : list) {
            mechanisms.add(ScramMechanism.bySaslName(String.valueOf(item))
                    .orElseThrow(() -> MongoErrors.badValue("Unknown auth mechanism '" + item + "'")));
        }
        return mechanisms;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> customData(Document command) {
        Object value = command.get("customData");
        if (value == null) {
            return null;
        }
        if (!(value instanceof Document d)) {
            throw MongoErrors.badValue("\"customData\" field must be an object");
        }
        return new Document(d);
    }

    private static Map<ScramMechanism, ScramCredential> credentials(
            Set<ScramMechanism> mechanisms, String name, String password, ScramIterations iterations) {
        Map<ScramMechanism, ScramCredential> credentials = new EnumMap<>(ScramMechanism.class);
        for (ScramMechanism m : mechanisms) {
            try {
                credentials.put(m, ScramCredential.forMongoUser(m, name, password, iterations.of(m)));
            } catch (IllegalArgumentException e) {   // SASLprep refused a character; the message names no content
                throw MongoErrors.badValue(e.getMessage());
            }
        }
        return credentials;
    }

    private static Document describe(User u) {
        Document d = new Document("_id", u.key());
        d.put("userId", u.id());
        d.put("user", u.name());
        d.put("db", u.db());
        d.put("roles", u.roles().stream().map(g -> new Document("role", g.role()).append("db", g.db())).toList());
        d.put("mechanisms", java.util.Arrays.stream(ScramMechanism.values()).filter(u.credentials()::containsKey)
                .map(ScramMechanism::saslName).toList());
        if (u.customData() != null) {
            d.put("customData", new Document(u.customData()));
        }
        return d;
    }

    // --- access ------------------------------------------------------------------------------------

    private static void requireUserAdmin(User caller, String db, String command) {
        if (caller != null && !caller.may(Action.USER_ADMIN, db)) {
            throw notAuthorized(db, command);
        }
    }

    static de.bwaldvogel.mongo.exception.MongoServerError notAuthorized(String db, String command) {
        return MongoErrors.unauthorized("not authorized on " + db + " to execute command { " + command + " }");
    }

    private static de.bwaldvogel.mongo.exception.MongoServerError notFound(String name, String db) {
        return MongoErrors.error(MongoErrors.USER_NOT_FOUND, "UserNotFound", "User '" + name + "@" + db + "' not found");
    }

    private static Document ok() {
        Document reply = new Document();
        Utils.markOkay(reply);
        return reply;
    }
}
