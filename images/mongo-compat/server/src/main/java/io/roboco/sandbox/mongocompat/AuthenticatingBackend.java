package io.roboco.sandbox.mongocompat;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerException;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import io.netty.channel.Channel;
import io.roboco.sandbox.mongocompat.auth.Action;
import io.roboco.sandbox.mongocompat.auth.User;
import io.roboco.sandbox.mongocompat.auth.UserStore;
import io.roboco.sandbox.mongocompat.fidelity.StandIn;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * mongod's access control in front of mongo-java-server's backend. Every call of {@link MongoBackend} carries
 * the client's Netty channel, so the connection's SCRAM state ({@link ConnectionAuth}) is at hand:
 *
 * <ul>
 *   <li>until a connection has authenticated, only {@code hello} / {@code isMaster}, {@code ping},
 *       {@code buildInfo}, {@code saslStart} and {@code saslContinue} run; everything else is code 13
 *       {@code Unauthorized};</li>
 *   <li>an authenticated user runs a command only where its roles grant it ({@link CommandAccess}); a cursor
 *       can be continued or killed only by the user that opened it; {@code listDatabases} shows only the
 *       databases the user holds a role on;</li>
 *   <li>users live in {@link UserStore} ({@link UserCommands}); the handshake answers {@code saslSupportedMechs}
 *       and {@code speculativeAuthenticate} as mongod does.</li>
 * </ul>
 *
 * With access control off (no root user, no {@code --auth}) every known command runs, as in mongod. Either way
 * the backend never sees a command outside the table, and failed commands are answered here, not thrown: the
 * backend's handler would log their bodies (a {@code createUser} carries a password).
 */
public final class AuthenticatingBackend implements MongoBackend {
    private static final Logger LOG = LoggerFactory.getLogger(AuthenticatingBackend.class);

    private final MongoBackend delegate;
    private final UserStore users;
    private final boolean accessControl;
    private final SaslCommands sasl;
    private final UserCommands userCommands;
    /** Cursor id → {@code db.user} that opened it (ids are sequential in mongo-java-server: guessable). */
    private final Map<Long, String> cursorOwners = new ConcurrentHashMap<>();

    public AuthenticatingBackend(MongoBackend delegate, UserStore users, boolean accessControl) {
        this.delegate = delegate;
        this.users = users;
        this.accessControl = accessControl;
        this.sasl = new SaslCommands(users);
        this.userCommands = new UserCommands(users);
    }

    @Override
    public Document handleMessage(MongoMessage message) {
        Document body = message.getDocument();
        String command = body.keySet().iterator().next();
        return dispatch(message.getChannel(), message.getDatabaseName(), command, body, () -> delegate.handleMessage(message));
    }

    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        return dispatch(channel, databaseName, command, query, () -> delegate.handleCommand(channel, databaseName, command, query));
    }

    private Document dispatch(Channel channel, String db, String command, Document body, Supplier<Document> backend) {
        try {
            if (db == null) {
                throw MongoErrors.error(MongoErrors.FAILED_TO_PARSE, "FailedToParse", "no $db in the command");
            }
            CommandAccess.Kind kind = CommandAccess.kind(command);
            if (kind == CommandAccess.Kind.UNKNOWN) {
                throw StandIn.isMongodCommand(command) ? StandIn.missingCommand(command) : MongoErrors.commandNotFound(command);
            }
            if (CommandAccess.adminOnly(command) && !db.equals("admin")) {
                throw MongoErrors.unauthorized(command + " may only be run against the admin database.");
            }
            if (kind == CommandAccess.Kind.OPEN) {
                return open(channel, db, command, body, backend);
            }
            // null: unrestricted (access control off); otherwise the connection's user, checked below.
            User caller = accessControl ? caller(channel) : null;
            if (accessControl && caller == null) {
                throw MongoErrors.unauthorized("command " + command + " requires authentication");
            }
            return switch (kind) {
                case SESSION -> session(channel, caller, command, backend);
                case USERS -> users(caller, db, command, body);
                case CHECKED -> checked(caller, db, command, body, backend);
                default -> throw new IllegalStateException(kind.name());
            };
        } catch (MongoServerException e) {
            return MongoErrors.reply(e);
        } catch (RuntimeException e) {
            // The message of an unexpected failure could quote the command: log the class only.
            LOG.warn("command {} failed unexpectedly ({})", command, e.getClass().getName());
            return MongoErrors.reply(new MongoServerException("internal error running " + command));
        }
    }

    private Document open(Channel channel, String db, String command, Document body, Supplier<Document> backend) {
        return switch (command.toLowerCase(java.util.Locale.ROOT)) {
            case "saslstart" -> sasl.saslStart(channel, db, body);
            case "saslcontinue" -> sasl.saslContinue(channel, body);
            case "hello", "ismaster" -> handshake(channel, db, command, body);
            default -> backend.get();
        };
    }

    /** mongo-java-server answers {@code isMaster}; {@code hello} is the same answer under its modern field names. */
    private Document handshake(Channel channel, String db, String command, Document body) {
        Document reply = delegate.handleCommand(channel, db, "isMaster", body);
        if (command.equals("hello")) {
            reply.remove("ismaster");
            reply.put("isWritablePrimary", Boolean.TRUE);
        }
        if (body.containsKey("helloOk")) {
            reply.put("helloOk", Boolean.TRUE);
        }
        reply.put("connectionId", ConnectionAuth.of(channel).connectionId);
        // Sessions and transactions: drivers use them only where the handshake shows a session timeout and a
        // replica set member or a router. The stand-in answers as a router (mongos): a single-node replica set's
        // answer would also list its members' addresses, and discovering drivers (pymongo 4, Node) drop a server
        // whose list lacks the address they dialled, which the container cannot know in a named Docker network.
        reply.put("msg", "isdbgrid");
        reply.put("logicalSessionTimeoutMinutes", 30);
        reply.put("readOnly", Boolean.FALSE);
        sasl.supportedMechanisms(body.get("saslSupportedMechs")).ifPresent(m -> reply.put("saslSupportedMechs", m));
        if (body.get("speculativeAuthenticate") instanceof Document speculative) {
            sasl.speculativeStart(channel, speculative).ifPresent(r -> {
                r.remove("ok");
                reply.put("speculativeAuthenticate", r);
            });
        }
        return reply;
    }

    private Document session(Channel channel, User caller, String command, Supplier<Document> backend) {
        String lower = command.toLowerCase(java.util.Locale.ROOT);
        if (lower.equals("connectionstatus")) {
            return connectionStatus(caller);
        }
        Document reply = backend.get();
        if (lower.equals("listdatabases") && caller != null && reply.get("databases") instanceof List<?> databases) {
            reply.put("databases", databases.stream()
                    .filter(d -> d instanceof Document doc && caller.sees(String.valueOf(doc.get("name")))).toList());
        }
        return reply;
    }

    private Document users(User caller, String db, String command, Document body) {
        return switch (command.toLowerCase(java.util.Locale.ROOT)) {
            case "createuser" -> userCommands.createUser(caller, db, body);
            case "updateuser" -> userCommands.updateUser(caller, db, body);
            case "dropuser" -> userCommands.dropUser(caller, db, body);
            case "dropallusersfromdatabase" -> userCommands.dropAllUsersFromDatabase(caller, db);
            case "usersinfo" -> userCommands.usersInfo(caller, db, body);
            default -> throw MongoErrors.commandNotFound(command);
        };
    }

    private Document checked(User caller, String db, String command, Document body, Supplier<Document> backend) {
        if (caller != null) {
            for (CommandAccess.Requirement need : CommandAccess.requirements(command, db, body)) {
                if (!caller.may(need.action(), need.db())) {
                    throw UserCommands.notAuthorized(need.db(), command);
                }
            }
        }
        String lower = command.toLowerCase(java.util.Locale.ROOT);
        String owner = caller == null ? "" : caller.key();
        boolean root = caller == null || caller.isRoot();
        if (lower.equals("getmore")) {
            long id = cursorId(body.get(command));
            if (!root && !owner.equals(cursorOwners.get(id))) {
                throw MongoErrors.unauthorized("not authorized to continue cursor " + id + ": it was opened by another user");
            }
        } else if (lower.equals("killcursors") && !root && body.get("cursors") instanceof List<?> ids) {
            for (Object id : ids) {
                if (!owner.equals(cursorOwners.get(cursorId(id)))) {
                    throw MongoErrors.unauthorized("not authorized to kill cursor " + id + ": it was opened by another user");
                }
            }
        }
        Document reply = backend.get();
        trackCursors(lower, body, reply, owner);
        return reply;
    }

    private void trackCursors(String command, Document body, Document reply, String owner) {
        if (command.equals("killcursors") && body.get("cursors") instanceof List<?> ids) {
            ids.forEach(id -> cursorOwners.remove(cursorId(id)));
            return;
        }
        if (reply.get("cursor") instanceof Document cursor && cursor.get("id") instanceof Number id) {
            if (id.longValue() != 0) {
                cursorOwners.put(id.longValue(), owner);
            } else if (command.equals("getmore")) {
                cursorOwners.remove(cursorId(body.get("getMore")));
            }
        }
    }

    private static long cursorId(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        throw MongoErrors.typeMismatch("cursor id must be a number");
    }

    private Document connectionStatus(User caller) {
        Document authInfo = new Document();
        authInfo.put("authenticatedUsers", caller == null ? List.of()
                : List.of(new Document("user", caller.name()).append("db", caller.db())));
        authInfo.put("authenticatedUserRoles", caller == null ? List.of()
                : caller.roles().stream().map(g -> new Document("role", g.role()).append("db", g.db())).toList());
        Document reply = new Document("authInfo", authInfo);
        Utils.markOkay(reply);
        return reply;
    }

    /** The connection's user as the store has it now (null when unauthenticated or since dropped). */
    private User caller(Channel channel) {
        ConnectionAuth auth = ConnectionAuth.of(channel);
        String db = auth.userDb();
        return db == null ? null : users.find(db, auth.userName()).orElse(null);
    }

    // --- legacy OP_QUERY paths and lifecycle ----------------------------------------------------------

    /** OP_QUERY on a collection (before MongoDB 3.6 drivers): reading needs the same right as {@code find}. */
    @Override
    public QueryResult handleQuery(MongoQuery query) {
        if (accessControl) {
            User caller = caller(query.getChannel());
            if (caller == null || !caller.may(Action.READ, query.getDatabaseName())) {
                Document error = MongoErrors.reply(MongoErrors.unauthorized("not authorized on " + query.getDatabaseName() + " to query"));
                error.put("$err", error.get("errmsg"));
                return new QueryResult(List.of(error), 0);
            }
        }
        return delegate.handleQuery(query);
    }

    /** Reached only through legacy OP_QUERY {@code serverStatus}, which has no channel to check: refused as mongod 5.1+ refuses it. */
    @Override
    public Document getServerStatus() {
        if (!accessControl) {
            return delegate.getServerStatus();
        }
        return MongoErrors.reply(MongoErrors.error(MongoErrors.UNSUPPORTED_OP_QUERY_COMMAND, "UnsupportedOpQueryCommand",
                "Unsupported OP_QUERY command: serverStatus. The client driver may require an upgrade."));
    }

    @Override
    public Collection<Document> getCurrentOperations(MongoQuery query) {
        User caller = caller(query.getChannel());
        if (accessControl && (caller == null || !caller.isRoot())) {
            return List.of();
        }
        return delegate.getCurrentOperations(query);
    }

    @Override
    public void handleClose(Channel channel) {
        delegate.handleClose(channel);
    }

    @Override
    public void dropDatabase(String databaseName) {
        delegate.dropDatabase(databaseName);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void closeCursors(List<Long> cursorIds) {
        cursorIds.forEach(cursorOwners::remove);
        delegate.closeCursors(cursorIds);
    }

    @Override
    public Clock getClock() {
        return delegate.getClock();
    }

    @Override
    public void enableOplog() {
        delegate.enableOplog();
    }

    @Override
    public void disableOplog() {
        delegate.disableOplog();
    }

    @Override
    public MongoDatabase resolveDatabase(String database) {
        return delegate.resolveDatabase(database);
    }

    @Override
    public MongoBackend version(MongoVersion version) {
        delegate.version(version);
        return this;
    }
}
