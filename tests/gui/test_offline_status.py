"""The network down, in the window: the status bar says so instead of a next fetch,
and the system's word that the network is back ends it. Real window, real
scheduler thread, real HTTP on 127.0.0.1: three sites answer, then their servers
stop (no server answers anywhere), then start again on the same ports."""

from __future__ import annotations

from PySide6.QtNetwork import QNetworkInformation

from tests.httpserver import FeedServer, Reply

AS_RSS = {"Content-Type": "application/rss+xml"}
RSS = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
    b"<item><guid>a</guid><title>A</title></item></channel></rss>"
)


def _serve(servers: list[FeedServer]) -> None:
    for s in servers:
        # no kept-alive connection: once stopped, nothing answers there
        s.route("/f.xml", Reply(body=RSS, headers=AS_RSS, content_length=False))
        s.start()


def test_the_status_bar_says_offline_until_the_network_is_back(env, qtbot):
    servers = [FeedServer() for _ in range(3)]
    ports = [s.port for s in servers]
    _serve(servers)
    try:
        for s in servers:
            fid = env.store.add_feed(s.url("/f.xml"), title=f"F{s.port}")
            env.updater.feed_changed(fid)
        win = env.window()
        qtbot.waitUntil(lambda: all(s.requests_for("/f.xml") for s in servers), timeout=30_000)
        qtbot.waitUntil(lambda: win.next_label.text().startswith("Next fetch"), timeout=10_000)
    finally:
        for s in servers:
            s.stop()
    with qtbot.wait_signal(win.sched.updateFinished, timeout=30_000):
        win.act_refresh_all.trigger()  # no server answers anywhere
    qtbot.waitUntil(lambda: win.next_label.text().startswith("Offline: next try"), timeout=10_000)
    assert "the network seems down" in win.next_label.toolTip()
    again = [FeedServer(port=p) for p in ports]
    try:
        _serve(again)
        win._reachability_changed(QNetworkInformation.Reachability.Online)
        qtbot.waitUntil(lambda: not win.next_label.text().startswith("Offline"), timeout=10_000)
        assert "network" not in win.next_label.toolTip()
        with qtbot.wait_signal(win.sched.updateFinished, timeout=30_000):
            win.act_refresh_all.trigger()
        assert all(s.requests_for("/f.xml") for s in again)
    finally:
        for s in again:
            s.stop()
