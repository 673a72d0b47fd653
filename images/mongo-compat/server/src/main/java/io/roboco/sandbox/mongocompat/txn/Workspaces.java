package io.roboco.sandbox.mongocompat.txn;

import io.netty.channel.Channel;

/** Makes transaction workspaces: a consistent snapshot of the server's data. */
public interface Workspaces {
    Workspace open(Channel channel);
}
