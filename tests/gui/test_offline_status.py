"""The network down, in the window: the status bar says so instead of a next fetch,
and the system's word that the network is back brings the next try forward. Real
window, real scheduler thread, real HTTP on 127.0.0.1 (closed ports stand for
hosts no one answers at)."""

from __future__ import annotations

import socket

from PySide6.QtNetwork import QNetworkInformation

from tests.httpserver import FeedServer, Reply

AS_RSS = {"Content-Type": "application/rss+xml"}
RSS = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
    b"<item><guid>a</guid><title>A</title></item></channel></rss>"
)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_status_bar_says_offline_and_the_network_coming_back_is_tried(env, qtbot):
    ports = [closed_port() for _ in range(3)]
    for p in ports:
        fid = env.store.add_feed(f"http://127.0.0.1:{p}/f.xml", title=f"F{p}")
        env.updater.feed_changed(fid)
    win = env.window()
    qtbot.waitUntil(lambda: win.next_label.text().startswith("Offline: next try"), timeout=30_000)
    assert "the network seems down" in win.next_label.toolTip()
    assert "0 / " in win.budget_label.text()  # the tries spent no request of the budget
    servers = [FeedServer(port=p) for p in ports]
    try:
        for s in servers:
            s.route("/f.xml", Reply(body=RSS, headers=AS_RSS))
            s.start()
        # the next try is a minute away; the system saying it is online brings it now
        win._reachability_changed(QNetworkInformation.Reachability.Online)
        qtbot.waitUntil(lambda: all(s.requests_for("/f.xml") for s in servers), timeout=20_000)
        qtbot.waitUntil(lambda: not win.next_label.text().startswith("Offline"), timeout=10_000)
        assert "network" not in win.next_label.toolTip()
    finally:
        for s in servers:
            s.stop()
