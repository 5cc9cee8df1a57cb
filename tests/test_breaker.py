"""A source that stopped answering is cut off (:mod:`citewarden.verify.breaker`).

The real HTTP client and sources run against :mod:`hostile_server`, a loopback server that
stalls (reads the request, never answers), answers 503, or fails now and then.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import re
from pathlib import Path

import pytest

from citewarden.model import Entry, Status, Verdict
from citewarden.settings import VerifySettings
from citewarden.verify.breaker import COOLDOWN, FAILURES, Breaker, Kind, judge
from citewarden.verify.config import URL_ENV, resolve_config
from citewarden.verify.engine import Verifier
from citewarden.verify.http import Failure, HttpClient, Reply, entry_budget
from citewarden.verify.normalize import make_entry
from citewarden.verify.rate_limit import Limit
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.doi import DoiSource
from citewarden.verify.sources.registry import make_http
from citewarden.verify.transport import CUT_SHORT
from cli_process import run_citewarden
from clocks import Clock
from hostile_server import CROSSREF_BODY, CROSSREF_DOI, Behaviour, HostileServer, hostile
from replay import fast_http

__all__ = ["hostile"]

WORK = f"/crossref/works/{CROSSREF_DOI}"
PATHS = (WORK, "/crossref/works", f"/doi/{CROSSREF_DOI}")


def _entry(key: str) -> Entry:
    return make_entry(
        key,
        "article",
        {
            "title": "Methylphenidate exposure induces dopamine neuron loss and activation of "
            "microglia in the basal ganglia of mice",
            "author": "Sadasivan, Shankar",
            "year": "2012",
            "doi": CROSSREF_DOI,
        },
    )


def _verifier(server: HostileServer, http: HttpClient, timeout: float) -> Verifier:
    sources = [
        CrossrefSource(http, server.url + "/crossref", mailto="t@example.org"),
        DoiSource(http, server.url + "/doi"),
    ]
    return Verifier(sources, VerifySettings(sources=("crossref", "doi"), timeout=timeout))


def _reasons(verdicts: dict[str, Verdict]) -> list[str]:
    return [v.reason or "" for v in verdicts.values()]


# -- what counts ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcome", "kind"),
    [
        (Reply(200, {}, b"{}", "u"), Kind.ANSWERED),
        (Reply(404, {}, b"", "u"), Kind.ANSWERED),  # "no such work" is an answer
        (Failure("rate limited", 429), Kind.NEITHER),  # the rate limiter's business
        (Failure("HTTP 503", 503), Kind.FAILED),
        (Failure("HTTP 500", 500), Kind.FAILED),
        (Failure("timeout: no complete response within 3 s"), Kind.FAILED),
        (Failure("cannot connect"), Kind.FAILED),
        (Failure("connection dropped"), Kind.FAILED),
        (Failure("entry time budget of 9 s used up"), Kind.NEITHER),
        (Failure("rate limited: the source asks for one request per 3 s"), Kind.NEITHER),
        (Failure("response body over 8 MB", 200), Kind.ANSWERED),
        # a body cut short or damaged on the way: no answer, whatever its status line said
        (Failure(CUT_SHORT, 200), Kind.FAILED),
        (
            Failure("malformed response: a body that is not the gzip it says it is", 200),
            Kind.FAILED,
        ),
    ],
)
def test_what_an_outcome_says_of_its_source(outcome: Reply | Failure, kind: Kind) -> None:
    assert judge(outcome) is kind


def test_a_timeout_the_budget_cut_short_says_nothing() -> None:
    assert judge(Failure("timeout: no complete response within 0.2 s"), cut_short=True) is (
        Kind.NEITHER
    )


def test_only_failures_in_a_row_open_it() -> None:
    clock = Clock()
    breaker = Breaker(clock=clock)
    key = ("api.crossref.org", "crossref")
    for _ in range(3):  # each time one short of the threshold, then an answer (a 404)
        for _ in range(FAILURES - 1):
            breaker.record(key, Kind.FAILED, "timeout", probe=False)
        breaker.record(key, Kind.NEITHER, "", probe=False)  # a 429 neither breaks nor mends
        assert breaker.refusal(key) is None
        breaker.record(key, Kind.ANSWERED, "", probe=False)
    for _ in range(FAILURES):
        breaker.record(key, Kind.FAILED, "timeout", probe=False)
    refused = breaker.refusal(key)
    assert refused is not None
    assert refused.reason == (
        f"crossref stopped answering: {FAILURES} requests in a row failed (timeout); "
        "not asked again for 60 s"
    )
    assert breaker.refusal(("api.openalex.org", "openalex")) is None  # others still asked


def test_two_timeouts_one_after_the_other_open_it() -> None:
    """A stalling source costs each request a whole timeout: the second round of them
    (a request sent after the first had timed out, and timed out too) cuts it off."""
    clock = Clock()
    breaker = Breaker(clock=clock)
    key = ("api.semanticscholar.org", "semanticscholar")
    sent = clock.now
    clock.now += 20.0
    breaker.record(key, Kind.FAILED, "timeout", probe=False, timed_out_from=sent)
    assert breaker.refusal(key) is None
    sent = clock.now + 1.0  # the next request, once the first had timed out
    clock.now += 21.0
    breaker.record(key, Kind.FAILED, "timeout", probe=False, timed_out_from=sent)
    refused = breaker.refusal(key)
    assert refused is not None
    assert refused.reason == (
        "semanticscholar stopped answering: 2 requests in a row failed (timeout); "
        "not asked again for 60 s"
    )


def test_timeouts_of_requests_sent_together_or_split_by_an_answer_do_not() -> None:
    clock = Clock()
    breaker = Breaker(clock=clock)
    key = ("api.crossref.org", "crossref")
    sent = clock.now
    clock.now += 20.0  # a moment of slowness: four requests sent together time out
    for _ in range(FAILURES - 1):
        breaker.record(key, Kind.FAILED, "timeout", probe=False, timed_out_from=sent)
    assert breaker.refusal(key) is None
    breaker.record(key, Kind.ANSWERED, "", probe=False)  # the source answers again
    for _ in range(2):  # a timeout, an answer, a timeout: never two rounds in a row
        sent = clock.now
        clock.now += 20.0
        breaker.record(key, Kind.FAILED, "timeout", probe=False, timed_out_from=sent)
        assert breaker.refusal(key) is None
        breaker.record(key, Kind.ANSWERED, "", probe=False)
    sent = clock.now  # a 503 after a timeout is no second round of silence
    clock.now += 20.0
    breaker.record(key, Kind.FAILED, "timeout", probe=False, timed_out_from=sent)
    clock.now += 1.0
    breaker.record(key, Kind.FAILED, "HTTP 503", probe=False)
    assert breaker.refusal(key) is None


# -- (a) a dead source is cut off -------------------------------------------------------------


async def test_a_source_that_stopped_answering_is_cut_off(hostile: HostileServer) -> None:
    hostile.fallback = Behaviour("stall")
    http = fast_http(timeout=0.5)
    verifier = _verifier(hostile, http, 0.5)
    entries = [_entry(f"e{i}") for i in range(24)]
    verdicts = await verifier.verify_many(entries)
    await http.aclose()
    assert {v.status for v in verdicts.values()} == {Status.UNVERIFIED}
    reasons = _reasons(verdicts)
    cut = [r for r in reasons if "crossref stopped answering" in r]
    assert cut, reasons
    # its requests timed out one round after another: cut off after the second round
    said = re.search(r"(\d) requests in a row failed \(timeout\); not asked again for 60 s", cut[0])
    assert said is not None, cut[0]
    assert 2 <= int(said.group(1)) < FAILURES
    # each source was asked a few times, not once or more per entry
    asked = len(hostile.seen(WORK)) + len(hostile.seen("/crossref/works"))
    assert asked < len(entries), asked
    assert len(hostile.seen(f"/doi/{CROSSREF_DOI}")) < len(entries)


async def test_a_source_answering_only_503_is_cut_off(hostile: HostileServer) -> None:
    hostile.fallback = Behaviour("503", retry_after="0")
    http = fast_http(timeout=0.5)
    verifier = _verifier(hostile, http, 0.5)
    verdicts = await verifier.verify_many([_entry(f"e{i}") for i in range(24)])
    await http.aclose()
    assert {v.status for v in verdicts.values()} == {Status.UNVERIFIED}
    assert any("doi stopped answering" in r for r in _reasons(verdicts))
    assert not any("not found" in r or "does not exist" in r for r in _reasons(verdicts))


# -- (b) transient faults do not trip it ------------------------------------------------------


async def test_transient_faults_do_not_cut_a_source_off(hostile: HostileServer) -> None:
    entries = [_entry(f"e{i}") for i in range(12)]
    for path in PATHS:
        hostile.route(path, Behaviour("ok"))
    http = fast_http(timeout=2.0)
    clean = await _verifier(hostile, http, 2.0).verify_many(entries)
    await http.aclose()
    assert Status.UNVERIFIED not in {v.status for v in clean.values()}
    # every other request answered 503 (each request fails once, then answers)
    for path in PATHS:
        hostile.route(path, Behaviour("flaky", every=2))
    hostile.log.clear()
    http = fast_http(timeout=2.0)
    faulty = await _verifier(hostile, http, 2.0).verify_many(entries)
    await http.aclose()
    assert {k: v.status for k, v in faulty.items()} == {k: v.status for k, v in clean.items()}
    assert not any("stopped answering" in r for r in _reasons(faulty))
    assert len(hostile.seen(WORK)) >= 2  # asked again after its 503


async def test_a_503_now_and_then_never_cuts_a_source_off(hostile: HostileServer) -> None:
    http = fast_http(timeout=1.0)
    for every in (2, 3, 20):  # half, a third, 5 % of the requests answered 503
        hostile.route(WORK, Behaviour("flaky", every=every))
        hostile.log.clear()
        replies = [await http.get(hostile.url + WORK, lane="crossref") for _ in range(30)]
        assert all(isinstance(r, Reply) and r.status == 200 for r in replies), every
        assert len(hostile.seen(WORK)) > 30
    await http.aclose()


async def test_an_answer_between_failures_keeps_the_source_asked(
    hostile: HostileServer,
) -> None:
    http = fast_http(timeout=0.3)
    for _ in range(3):
        hostile.route(WORK, Behaviour("503", retry_after="0"))
        for _ in range(FAILURES - 1):
            failed = await http.get(hostile.url + WORK, lane="crossref")
            assert isinstance(failed, Failure) and failed.reason == "HTTP 503"
        hostile.route(WORK, Behaviour("missing"))  # a 404 is an answer
        missing = await http.get(hostile.url + WORK, lane="crossref")
        assert isinstance(missing, Reply) and missing.status == 404
    await http.aclose()


async def test_an_agency_that_stalls_is_cut_off_on_its_own_not_the_service_handing_over(
    hostile: HostileServer,
) -> None:
    """doi.org hands a DOI over to its registration agency: doi.org answered (with the
    redirect), and an agency that stalls is cut off on its own, named by its host; doi.org
    stays in use for the DOIs of the other agencies.  doi.org itself stalling twice, one
    request after the other, cuts it off."""
    hostile.route("/doi/agency", Behaviour("redirect", location=hostile.other_origin + "/ra"))
    hostile.route("/ra", Behaviour("stall"))
    hostile.route("/doi/fine", Behaviour("ok"))
    hostile.route("/doi/itself", Behaviour("stall"))
    http = fast_http(timeout=0.3, redirect_hosts={"doi": frozenset({"localhost"})})
    for _ in range(2):
        failed = await http.get(hostile.url + "/doi/agency", lane="doi")
        assert isinstance(failed, Failure) and failed.reason.startswith("timeout"), failed
    refused = await http.get(hostile.url + "/doi/agency", lane="doi")
    assert isinstance(refused, Failure)
    assert refused.reason.startswith(
        "localhost (via doi) stopped answering: 2 requests in a row failed (timeout)"
    )
    assert len(hostile.seen("/doi/agency")) == 3  # doi.org asked every time ...
    assert len(hostile.seen("/ra")) == 2  # ... the agency not the third time
    fine = await http.get(hostile.url + "/doi/fine", lane="doi")
    assert isinstance(fine, Reply) and fine.status == 200
    assert [name for name, _ in http.breaker.stopped()] == ["localhost (via doi)"]
    for _ in range(2):
        failed = await http.get(hostile.url + "/doi/itself", lane="doi")
        assert isinstance(failed, Failure) and failed.reason.startswith("timeout"), failed
    refused = await http.get(hostile.url + "/doi/itself", lane="doi")
    assert isinstance(refused, Failure)
    assert refused.reason.startswith("doi stopped answering: 2 requests in a row failed")
    assert len(hostile.seen("/doi/itself")) == 2
    await http.aclose()


async def test_an_agency_answering_503_is_cut_off_and_probed_again_on_its_own(
    hostile: HostileServer,
) -> None:
    """Five requests in a row that an agency answered with 503 cut that agency off, not
    doi.org: a DOI doi.org answers itself still resolves.  After the cool-down one
    request goes through to the agency again, and its answer puts it back in use."""
    clock = Clock()
    hostile.route("/doi/agency", Behaviour("redirect", location=hostile.other_origin + "/ra"))
    hostile.route("/ra", Behaviour("503", retry_after="0"))
    hostile.route("/doi/fine", Behaviour("ok"))
    http = fast_http(
        timeout=1.0,
        redirect_hosts={"doi": frozenset({"localhost"})},
        breaker=Breaker(cooldown=60.0, clock=clock),
    )
    for _ in range(FAILURES):
        failed = await http.get(hostile.url + "/doi/agency", lane="doi")
        assert isinstance(failed, Failure) and failed.reason == "HTTP 503", failed
    asked = len(hostile.seen("/ra"))
    refused = await http.get(hostile.url + "/doi/agency", lane="doi")
    assert isinstance(refused, Failure)
    assert refused.reason.startswith(
        f"localhost (via doi) stopped answering: {FAILURES} requests in a row failed (HTTP 503)"
    )
    assert len(hostile.seen("/ra")) == asked
    fine = await http.get(hostile.url + "/doi/fine", lane="doi")
    assert isinstance(fine, Reply) and fine.status == 200
    hostile.route("/ra", Behaviour("ok"))
    clock.now += 61.0
    back = await http.get(hostile.url + "/doi/agency", lane="doi")
    assert isinstance(back, Reply) and back.status == 200
    assert http.breaker.stopped() == []
    assert [name for name, _ in http.breaker.cut_off()] == ["localhost (via doi)"]
    await http.aclose()


async def test_the_probe_of_an_agency_is_retried_as_any_request_is(
    hostile: HostileServer,
) -> None:
    """The request that probes a cut-off agency after the cool-down is retried when the
    agency answers 503: its retry, handed over to the same agency again, is still the
    probe (not refused as another request while the probe is out), and its answer puts
    the agency back in use."""
    clock = Clock()
    hostile.route("/doi/agency", Behaviour("redirect", location=hostile.other_origin + "/ra"))
    hostile.route("/ra", Behaviour("503", retry_after="0"))
    http = fast_http(
        timeout=1.0,
        redirect_hosts={"doi": frozenset({"localhost"})},
        breaker=Breaker(cooldown=60.0, clock=clock),
    )
    for _ in range(FAILURES):
        await http.get(hostile.url + "/doi/agency", lane="doi")
    assert [name for name, _ in http.breaker.stopped()] == ["localhost (via doi)"]
    clock.now += 61.0
    hostile.log.clear()
    hostile.route("/ra", Behaviour("flaky", every=2))  # 503 first, then the answer
    back = await http.get(hostile.url + "/doi/agency", lane="doi")
    await http.aclose()
    assert isinstance(back, Reply) and back.status == 200, back
    assert len(hostile.seen("/ra")) == 2
    assert http.breaker.stopped() == []


async def test_a_probe_of_an_agency_that_a_retry_does_not_reach_again_is_settled(
    hostile: HostileServer,
) -> None:
    """The request that probes a cut-off agency is retried (the agency answered 503), and
    doi.org sends the retry to another agency: the first agency's probe said nothing, so
    it is not left in flight; the next request handed over to that agency probes it again
    and puts it back in use."""
    clock = Clock()
    first = hostile.other_origin + "/ra"  # localhost
    second = f"http://127.1:{hostile.port}/rb"  # the same server under a third host name
    hostile.route("/doi/agency", Behaviour("redirect", location=first))
    hostile.route("/ra", Behaviour("503", retry_after="0"))
    hostile.route("/rb", Behaviour("ok"))
    http = fast_http(
        timeout=1.0,
        redirect_hosts={"doi": frozenset({"localhost", "127.1"})},
        breaker=Breaker(cooldown=60.0, clock=clock),
    )
    for _ in range(FAILURES):
        failed = await http.get(hostile.url + "/doi/agency", lane="doi")
        assert isinstance(failed, Failure) and failed.reason == "HTTP 503", failed
    assert [name for name, _ in http.breaker.stopped()] == ["localhost (via doi)"]
    clock.now += 61.0
    hostile.log.clear()
    hostile.route("/doi/agency", Behaviour("redirect", locations=(first, second)))
    moved = await http.get(hostile.url + "/doi/agency", lane="doi")
    assert isinstance(moved, Reply) and moved.status == 200
    assert (len(hostile.seen("/ra")), len(hostile.seen("/rb"))) == (1, 1)
    hostile.route("/doi/agency", Behaviour("redirect", location=first))
    hostile.route("/ra", Behaviour("ok"))
    back = await http.get(hostile.url + "/doi/agency", lane="doi")
    assert isinstance(back, Reply) and back.status == 200, back
    assert len(hostile.seen("/ra")) == 2
    assert http.breaker.stopped() == []
    await http.aclose()


def test_check_names_once_each_source_that_stopped_answering(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """``citewarden check`` (a real process) says after the entries which sources were
    cut off, once each, beside every entry's own reason; a source that answered is not
    named."""
    hostile.fallback = Behaviour("stall")
    hostile.route("/openalex/works", Behaviour("missing"))  # answers: never cut off
    bib = "".join(
        f"@article{{e{i},\n  title = {{A study of thing number {i} in the wild}},\n"
        f"  author = {{Moreau, Claire}},\n  journal = {{Journal of Things}},\n"
        f"  doi = {{10.1234/x{i}}},\n  year = {{2019}}\n}}\n"
        for i in range(6)
    )
    (tmp_path / "refs.bib").write_text(bib)
    (tmp_path / ".citewarden.toml").write_text("[verify]\ntimeout = 0.5\n")
    env = {var: f"{hostile.url}/{name}" for name, var in URL_ENV.items()}
    env |= {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cache"), "CITEWARDEN_MAILTO": "t@example.org"}
    done = run_citewarden(["check", "refs.bib", "--format", "json"], tmp_path, env)
    report = json.loads(done.stdout)
    assert {e["status"] for e in report["entries"]} == {"unverified"}
    notices = [line for line in done.stderr.splitlines() if "stopped answering" in line]
    named = [re.match(r"citewarden: warning: (\w+) stopped answering \(", n) for n in notices]
    assert all(named), notices
    services = [m.group(1) for m in named if m]
    assert "crossref" in services and "openalex" not in services
    assert len(services) == len(set(services))  # once each
    assert notices[services.index("crossref")].endswith(
        "requests in a row failed (timeout)): the entries that needed it are unverified; "
        "check again later"
    )
    # the JSON report lists the same sources, the HTML report's summary names them
    listed = {s["source"]: s["reason"] for s in report["sources_stopped"]}
    assert sorted(listed) == sorted(services)
    assert re.fullmatch(r"\d requests in a row failed \(timeout\)", listed["crossref"])
    sarif = json.loads(
        run_citewarden(["check", "refs.bib", "--format", "sarif"], tmp_path, env).stdout
    )
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    # (a run of its own: how many failures cut a source off may differ)
    assert sorted(n["properties"]["source"] for n in notes) == sorted(listed)
    assert all(n["message"]["text"].endswith("check again later") for n in notes)
    page = run_citewarden(["check", "refs.bib", "--format", "html"], tmp_path, env).stdout
    stopped = re.search(r'<p class="note" id="sources-stopped">(.*?)</p>', page)
    assert stopped is not None
    assert f"<b>crossref</b> ({listed['crossref']})" in stopped.group(1)
    assert "openalex" not in stopped.group(1)


def test_the_breaker_settings_set_when_a_source_is_cut_off_and_for_how_long(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """``verify.breaker-failures`` and ``verify.breaker-cooldown`` in a settings file
    reach the client of ``citewarden check``: one failed request cuts a source answering
    only 503 off (the default waits for five), and its look-ups say for how long (the
    default: 60 s)."""
    hostile.fallback = Behaviour("503", retry_after="0")
    bib = "".join(
        f"@article{{e{i},\n  title = {{A study of thing number {i}}},\n"
        f"  author = {{Moreau, Claire}},\n  doi = {{10.1234/x{i}}},\n  year = {{2019}}\n}}\n"
        for i in range(4)
    )
    (tmp_path / "refs.bib").write_text(bib)
    (tmp_path / ".citewarden.toml").write_text(
        "[verify]\ntimeout = 0.5\nbreaker-failures = 1\nbreaker-cooldown = 300\n"
    )
    env = {var: f"{hostile.url}/{name}" for name, var in URL_ENV.items()}
    env |= {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cache"), "CITEWARDEN_MAILTO": "t@example.org"}
    done = run_citewarden(["check", "refs.bib", "--format", "json"], tmp_path, env)
    report = json.loads(done.stdout)
    assert "setting" not in done.stderr, done.stderr  # both settings known, in bounds
    listed = {s["source"]: s["reason"] for s in report["sources_stopped"]}
    assert listed["crossref"] == "1 request failed (HTTP 503)", listed
    reasons = " ".join(f["message"] for e in report["entries"] for f in e["findings"])
    assert "stopped answering: 1 request failed (HTTP 503); not asked again for 300 s" in reasons


def test_the_breaker_settings_reach_the_client_built_for_them() -> None:
    settings = VerifySettings(breaker_failures=3, breaker_cooldown=7.5)
    http = make_http(resolve_config(settings, env={}))
    assert (http.breaker.failures, http.breaker.cooldown) == (3, 7.5)
    default = make_http(resolve_config(VerifySettings(), env={})).breaker
    assert (default.failures, default.cooldown) == (FAILURES, COOLDOWN)


# -- (c) a long-lived process asks it again after the cool-down -------------------------------


async def test_a_source_cut_off_is_asked_again_after_the_cool_down(
    hostile: HostileServer,
) -> None:
    clock = Clock()
    http = fast_http(timeout=0.3, breaker=Breaker(cooldown=60.0, clock=clock))
    hostile.fallback = Behaviour("stall")
    verifier = _verifier(hostile, http, 0.3)
    first = await verifier.verify_many([_entry(f"e{i}") for i in range(12)])
    assert {v.status for v in first.values()} == {Status.UNVERIFIED}
    # the source is back, but within the cool-down it is not asked
    hostile.fallback = None
    for path in PATHS:
        hostile.route(path, Behaviour("ok"))
    hostile.log.clear()
    clock.now += 30.0
    early = await verifier.verify(_entry("early"))
    assert early.status is Status.UNVERIFIED
    assert "stopped answering" in (early.reason or "")
    assert hostile.log == []
    # past it, one request probes the source, it answers, and every entry is verified again
    clock.now += 31.0
    later = await verifier.verify_many([_entry(f"later{i}") for i in range(4)])
    await verifier.aclose()
    await http.aclose()
    assert Status.UNVERIFIED not in {v.status for v in later.values()}
    assert hostile.log != []


async def test_a_probe_that_fails_leaves_the_source_cut_off(hostile: HostileServer) -> None:
    clock = Clock()
    http = fast_http(timeout=0.3, breaker=Breaker(cooldown=10.0, clock=clock))
    hostile.route(WORK, Behaviour("stall"))
    for _ in range(2):  # two timeouts one after the other cut it off
        await http.get(hostile.url + WORK, lane="crossref")
    assert len(hostile.seen(WORK)) == 2
    refused = await http.get(hostile.url + WORK, lane="crossref")
    assert isinstance(refused, Failure) and "stopped answering" in refused.reason
    clock.now += 11.0
    # one probe is sent (the others meanwhile are refused); it fails: cut off again
    probes = await asyncio.gather(
        *(http.get(hostile.url + WORK, lane="crossref") for _ in range(3))
    )
    assert len(hostile.seen(WORK)) == 3
    assert sum("stopped answering" in p.reason for p in probes if isinstance(p, Failure)) == 2
    again = await http.get(hostile.url + WORK, lane="crossref")
    assert isinstance(again, Failure) and "stopped answering" in again.reason
    assert len(hostile.seen(WORK)) == 3
    await http.aclose()


# -- (d) a wait for a turn says nothing of the source ---------------------------------------


async def test_a_retry_behind_a_long_queue_of_a_source_that_answers_is_not_charged(
    hostile: HostileServer,
) -> None:
    """A source answering the first of every two requests 429 with Retry-After: 0 (as a
    busy service does now and then) behind a lane of 4 requests a second: each retry waits
    behind the other entries' requests, and that wait is no time spent on the source, so no
    entry's budget goes on it (charged, HALLMARK dev with 15 % of the answers 429 lost
    verdicts of 603 to used-up budgets)."""
    hostile.route(WORK, Behaviour("flaky", every=2, fails_with=429))
    http = fast_http(timeout=2.0, limits={"crossref": Limit(4.0, 1, 1)})

    async def one() -> Reply | Failure:
        with entry_budget(2.0):
            return await http.get(hostile.url + WORK, lane="crossref")

    outcomes = await asyncio.gather(*(one() for _ in range(12)))
    await http.aclose()
    reasons = [o.reason for o in outcomes if isinstance(o, Failure)]
    assert not any(r.startswith("entry time budget") for r in reasons), reasons
    assert sum(isinstance(o, Reply) and o.status == 200 for o in outcomes) >= 10


async def test_a_probe_is_retried_as_any_request_is(hostile: HostileServer) -> None:
    """The probe of a source cut off meets one 503 (a random fault), then an answer: it is
    retried as every request is, and the answer closes the breaker."""
    clock = Clock()
    http = fast_http(timeout=0.3, breaker=Breaker(cooldown=10.0, clock=clock))
    hostile.route(WORK, Behaviour("503", retry_after="0"))
    for _ in range(FAILURES):
        await http.get(hostile.url + WORK, lane="crossref")
    clock.now += 11.0
    hostile.route(WORK, Behaviour("flaky", every=2))
    hostile.log.clear()  # the probe's first attempt answered 503, its retry 200
    probe = await http.get(hostile.url + WORK, lane="crossref")
    assert isinstance(probe, Reply) and probe.status == 200, probe
    after = await http.get(hostile.url + WORK, lane="crossref")
    await http.aclose()
    assert isinstance(after, Reply) and after.status == 200, after
    assert len(hostile.seen(WORK)) == 4  # each: a 503, then 200 on its retry


async def test_a_source_whose_bodies_come_cut_short_is_cut_off(hostile: HostileServer) -> None:
    """Every answer's compressed body ends part way (the connection closed under it): the
    source said nothing, as one that drops the connection before the status line."""
    whole = gzip.compress(CROSSREF_BODY)
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
        b"Connection: close\r\n\r\n"
    )
    hostile.route(WORK, Behaviour("raw", body=head + whole[: len(whole) // 2]))
    http = fast_http(timeout=1.0)
    for _ in range(FAILURES):
        failed = await http.get(hostile.url + WORK, lane="crossref")
        assert isinstance(failed, Failure) and failed.reason == CUT_SHORT, failed
    asked = len(hostile.seen(WORK))
    refused = await http.get(hostile.url + WORK, lane="crossref")
    await http.aclose()
    assert isinstance(refused, Failure), refused
    assert refused.reason.startswith("crossref stopped answering"), refused
    assert len(hostile.seen(WORK)) == asked


def test_stopped_names_the_sources_cut_off_now_cut_off_those_ever_cut_off() -> None:
    """The editor's status shows the sources cut off now (a probe that got an answer takes
    one off); a run's summary names every source cut off at some point."""
    clock = Clock()
    breaker = Breaker(cooldown=60.0, clock=clock)
    crossref, dblp = ("h", "crossref"), ("h", "dblp")
    for _ in range(FAILURES):
        breaker.record(crossref, Kind.FAILED, "HTTP 503", probe=False)
        breaker.record(dblp, Kind.FAILED, "HTTP 503", probe=False)
    assert sorted(breaker.stopped()) == [
        ("crossref", f"{FAILURES} requests in a row failed (HTTP 503)"),
        ("dblp", f"{FAILURES} requests in a row failed (HTTP 503)"),
    ]
    clock.now += 61.0  # the cool-down is over, but no answer yet: still cut off
    assert [name for name, _ in breaker.stopped()] == ["crossref", "dblp"]
    refused, probe = breaker.admit(crossref)
    assert refused is None and probe
    breaker.record(crossref, Kind.ANSWERED, "", probe=True)
    assert [name for name, _ in breaker.stopped()] == ["dblp"]
    assert [name for name, _ in breaker.cut_off()] == ["crossref", "dblp"]
