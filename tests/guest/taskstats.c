// SPDX-License-Identifier: GPL-2.0
/*
 * A taskstats client as the kernel's getdelays.c is one: each request one
 * datagram to the family, its reply one datagram back.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "taskstats.h"

/* A reply holds one struct taskstats and its nesting: a page is room enough. */
#define MSG_MAX 4096
/* The version that added compact_delay_total, the last field read here. */
#define TASKSTATS_COMPACT_VERSION 11

union msg_buf {
	struct nlmsghdr h;
	char bytes[MSG_MAX];
};

static const void *attr_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static size_t attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* The attribute of that type among len bytes of attributes; NULL if none is whole. */
static const struct nlattr *find_attr(const void *attrs, size_t len, uint16_t type)
{
	const char *p = attrs;

	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t step = NLA_ALIGN(a->nla_len);

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		if (step >= len)
			return NULL;
		p += step;
		len -= step;
	}
	return NULL;
}

/* The attributes of a generic netlink message, after its headers. */
static const void *genl_attrs(const union msg_buf *m)
{
	return m->bytes + NLMSG_LENGTH(GENL_HDRLEN);
}

static void put_attr(struct nlmsghdr *h, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* The reply to request c->seq: the length of its attributes, or -errno. */
static int receive(struct taskstats_client *c, union msg_buf *reply)
{
	const struct nlmsgerr *e = NLMSG_DATA(&reply->h);
	ssize_t n;

	do
		n = recv(c->fd, reply, sizeof(*reply), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(reply->h) || reply->h.nlmsg_len > (size_t)n ||
	    reply->h.nlmsg_seq != c->seq)
		return -EPROTO;
	if (reply->h.nlmsg_type == NLMSG_ERROR) {
		if (reply->h.nlmsg_len < NLMSG_LENGTH(sizeof(*e)) || !e->error)
			return -EPROTO;
		return e->error;
	}
	if (reply->h.nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EPROTO;
	return (int)(reply->h.nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
}

/*
 * Sends family the command cmd with one attribute and receives its reply;
 * the length of the reply's attributes, or -errno.
 */
static int transact(struct taskstats_client *c, uint16_t family, uint8_t cmd, uint16_t type,
		    const void *data, uint16_t len, union msg_buf *reply)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	union msg_buf req;
	struct genlmsghdr *g = NLMSG_DATA(&req.h);

	memset(&req, 0, NLMSG_LENGTH(GENL_HDRLEN) + NLA_HDRLEN + NLA_ALIGN(len));
	req.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req.h.nlmsg_type = family;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = ++c->seq;
	g->cmd = cmd;
	g->version = 1;
	put_attr(&req.h, type, data, len);
	if (sendto(c->fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	return receive(c, reply);
}

int taskstats_connect(struct taskstats_client *c)
{
	const struct nlattr *id = NULL;
	union msg_buf reply;
	int len;

	c->seq = 0;
	c->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (c->fd < 0)
		return -errno;
	len = transact(c, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		       TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME), &reply);
	if (len >= 0)
		id = find_attr(genl_attrs(&reply), len, CTRL_ATTR_FAMILY_ID);
	if (!id || attr_len(id) < sizeof(c->family)) {
		taskstats_disconnect(c);
		return len < 0 ? len : -EPROTO;
	}
	memcpy(&c->family, attr_data(id), sizeof(c->family));
	return 0;
}

void taskstats_disconnect(struct taskstats_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Whether the nest's attribute of type id_type says id: the reply is about what was asked. */
static bool reply_names(const struct nlattr *nest, uint16_t id_type, uint32_t id)
{
	const struct nlattr *a = find_attr(attr_data(nest), attr_len(nest), id_type);
	uint32_t said;

	if (!a || attr_len(a) < sizeof(said))
		return false;
	memcpy(&said, attr_data(a), sizeof(said));
	return said == id;
}

static void copy_delays(const struct taskstats *ts, struct task_delays *d)
{
	d->swapin_ns = ts->swapin_delay_total;
	d->thrashing_ns = ts->thrashing_delay_total;
	d->reclaim_ns = ts->freepages_delay_total;
	d->compact_ns = ts->compact_delay_total;
	d->blkio_ns = ts->blkio_delay_total;
}

/*
 * TASKSTATS_CMD_GET of id by attribute cmd_attr; the reply nests the stats
 * in an attribute of type aggr, beside id as id_type.
 */
static int query(struct taskstats_client *c, uint16_t cmd_attr, uint16_t aggr, uint16_t id_type,
		 pid_t id, struct task_delays *d)
{
	const size_t needed = offsetof(struct taskstats, compact_delay_total) +
			      sizeof(((struct taskstats *)0)->compact_delay_total);
	const struct nlattr *nest = NULL, *stats = NULL;
	struct taskstats ts = { 0 };
	uint32_t id32 = (uint32_t)id;
	union msg_buf reply;
	size_t size;
	int len;

	len = transact(c, c->family, TASKSTATS_CMD_GET, cmd_attr, &id32, sizeof(id32), &reply);
	if (len < 0)
		return len;
	nest = find_attr(genl_attrs(&reply), len, aggr);
	if (nest && reply_names(nest, id_type, id32))
		stats = find_attr(attr_data(nest), attr_len(nest), TASKSTATS_TYPE_STATS);
	if (!stats)
		return -EPROTO;
	/* A newer kernel's struct is longer; what this one knows is at the same offsets. */
	size = attr_len(stats) < sizeof(ts) ? attr_len(stats) : sizeof(ts);
	memcpy(&ts, attr_data(stats), size);
	if (size < needed || ts.version < TASKSTATS_COMPACT_VERSION)
		return -EPROTO;
	copy_delays(&ts, d);
	return 0;
}

int taskstats_thread(struct taskstats_client *c, pid_t tid, struct task_delays *d)
{
	return query(c, TASKSTATS_CMD_ATTR_PID, TASKSTATS_TYPE_AGGR_PID, TASKSTATS_TYPE_PID, tid, d);
}

int taskstats_process(struct taskstats_client *c, pid_t tgid, struct task_delays *d)
{
	return query(c, TASKSTATS_CMD_ATTR_TGID, TASKSTATS_TYPE_AGGR_TGID, TASKSTATS_TYPE_TGID,
		     tgid, d);
}
