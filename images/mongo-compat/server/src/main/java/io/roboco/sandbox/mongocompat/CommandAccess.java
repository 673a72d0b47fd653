package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.bson.Document;
import io.roboco.sandbox.mongocompat.auth.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Which commands the stand-in serves and what each needs, as a closed table: a command not named here is
 * answered {@code CommandNotFound} without reaching mongo-java-server (which would log its body).
 *
 * <ul>
 *   <li>{@link Kind#OPEN}: the handshake set, allowed before authentication.</li>
 *   <li>{@link Kind#SESSION}: any authenticated connection ({@code endSessions}, {@code connectionStatus}, ...).</li>
 *   <li>{@link Kind#CHECKED}: an {@link Action} on the command's database ({@link #requirements}).</li>
 *   <li>{@link Kind#USERS}: user management, checked by {@link UserCommands} itself.</li>
 * </ul>
 */
final class CommandAccess {
    enum Kind { OPEN, SESSION, CHECKED, USERS, UNKNOWN }

    /** One action the caller needs on one database. */
    record Requirement(Action action, String db) {
    }

    private record Rule(Kind kind, Action action, boolean adminOnly) {
    }

    private static final Map<String, Rule> RULES = Map.ofEntries(
            open("hello"), open("ismaster"), open("ping"), open("buildinfo"), open("saslstart"), open("saslcontinue"),
            session("endsessions"), session("connectionstatus"), session("whatsmyuri"), session("getlasterror"),
            session("reseterror"), Map.entry("listdatabases", new Rule(Kind.SESSION, null, true)),
            Map.entry("committransaction", new Rule(Kind.SESSION, null, true)),
            Map.entry("aborttransaction", new Rule(Kind.SESSION, null, true)),
            checked("find", Action.READ), checked("count", Action.READ), checked("distinct", Action.READ),
            checked("aggregate", Action.READ), checked("listcollections", Action.READ), checked("listindexes", Action.READ),
            checked("dbstats", Action.READ), checked("collstats", Action.READ), checked("getmore", Action.READ),
            checked("killcursors", Action.READ),
            checked("insert", Action.WRITE), checked("update", Action.WRITE), checked("delete", Action.WRITE),
            checked("findandmodify", Action.WRITE), checked("create", Action.WRITE), checked("drop", Action.WRITE),
            checked("createindexes", Action.WRITE), checked("dropindexes", Action.WRITE),
            Map.entry("renamecollection", new Rule(Kind.CHECKED, Action.WRITE, true)),
            checked("dropdatabase", Action.DB_ADMIN), checked("validate", Action.DB_ADMIN), checked("collmod", Action.DB_ADMIN),
            Map.entry("serverstatus", new Rule(Kind.CHECKED, Action.CLUSTER, false)), cluster("hostinfo"), cluster("getcmdlineopts"), cluster("getfreemonitoringstatus"),
            cluster("replsetgetstatus"), cluster("getlog"),
            users("createuser"), users("updateuser"), users("dropuser"), users("dropallusersfromdatabase"), users("usersinfo"));

    private CommandAccess() {
    }

    static Kind kind(String command) {
        Rule rule = RULES.get(command.toLowerCase(Locale.ROOT));
        return rule == null ? Kind.UNKNOWN : rule.kind();
    }

    /** Commands mongod runs only on {@code admin} ({@code listDatabases}, {@code renameCollection}, the server-wide ones). */
    static boolean adminOnly(String command) {
        Rule rule = RULES.get(command.toLowerCase(Locale.ROOT));
        return rule != null && rule.adminOnly();
    }

    /**
     * What a {@link Kind#CHECKED} command needs: its action on {@code db}; for {@code renameCollection}, writing
     * both namespaces' databases; for {@code aggregate}, also writing wherever {@code $out} / {@code $merge} lead.
     */
    static List<Requirement> requirements(String command, String db, Document body) {
        String lower = command.toLowerCase(Locale.ROOT);
        Rule rule = RULES.get(lower);
        List<Requirement> needs = new ArrayList<>();
        switch (lower) {
            case "renamecollection" -> {
                needs.add(new Requirement(Action.WRITE, databaseOf(body.get(command))));
                needs.add(new Requirement(Action.WRITE, databaseOf(body.get("to"))));
            }
            case "aggregate" -> {
                needs.add(new Requirement(Action.READ, db));
                collectWriteTargets(body.get("pipeline"), db, needs);
            }
            default -> needs.add(new Requirement(rule.action(), db));
        }
        // mongod grants bypassDocumentValidation with dbAdmin (and root), not with readWrite.
        if (Boolean.TRUE.equals(body.get("bypassDocumentValidation"))) {
            needs.add(new Requirement(Action.DB_ADMIN, db));
        }
        return needs;
    }

    private static void collectWriteTargets(Object node, String db, List<Requirement> needs) {
        if (node instanceof List<?> list) {
            list.forEach(item -> collectWriteTargets(item, db, needs));
        } else if (node instanceof Document doc) {
            for (Map.Entry<String, Object> e : doc.entrySet()) {
                if (e.getKey().equals("$out") || e.getKey().equals("$merge")) {
                    needs.add(new Requirement(Action.WRITE, targetDatabase(e.getValue(), db)));
                }
                collectWriteTargets(e.getValue(), db, needs);
            }
        }
    }

    /** {@code $out: "coll" | {db, coll}}, {@code $merge: "coll" | {into: "coll" | {db, coll}}}. */
    private static String targetDatabase(Object spec, String db) {
        if (spec instanceof Document d) {
            Object into = d.containsKey("into") ? d.get("into") : d;
            if (into instanceof Document target && target.get("db") instanceof String targetDb) {
                return targetDb;
            }
        }
        return db;
    }

    private static String databaseOf(Object namespace) {
        String ns = String.valueOf(namespace);
        int dot = ns.indexOf('.');
        return dot < 0 ? ns : ns.substring(0, dot);
    }

    private static Map.Entry<String, Rule> open(String name) {
        return Map.entry(name, new Rule(Kind.OPEN, null, false));
    }

    private static Map.Entry<String, Rule> session(String name) {
        return Map.entry(name, new Rule(Kind.SESSION, null, false));
    }

    private static Map.Entry<String, Rule> checked(String name, Action action) {
        return Map.entry(name, new Rule(Kind.CHECKED, action, false));
    }

    private static Map.Entry<String, Rule> cluster(String name) {
        return Map.entry(name, new Rule(Kind.CHECKED, Action.CLUSTER, true));
    }

    private static Map.Entry<String, Rule> users(String name) {
        return Map.entry(name, new Rule(Kind.USERS, null, false));
    }
}
