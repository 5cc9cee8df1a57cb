"""The language server: wiring of the feature modules, and ``main`` for ``citewarden serve``.

:func:`create_server` builds a server with every feature registered; each handler is
isolated (an exception is logged and the feature answers with an empty result).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any, BinaryIO, NoReturn, cast

from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcRequestCancelled,
    JsonRpcServerNotInitialized,
)
from pygls.io_ import run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    MsgId,
    ResponseErrorMessage,
    RPCNotification,
    RPCRequest,
)
from pygls.protocol.language_server import lsp_method

from citewarden import __version__
from citewarden.lsp import actions, add_reference, navigation, verify_actions, watch
from citewarden.lsp.check_cycle import favour_requests
from citewarden.lsp.client_answers import NoAnswer, answer
from citewarden.lsp.convert import plain_json_converter
from citewarden.lsp.framing import (
    TOO_LARGE,
    BoundedInput,
    BoundedStream,
    Refusal,
    message_limit,
    out_of_memory,
    refusal,
    top_level_fields,
)
from citewarden.lsp.incoming import (
    absent_params,
    clean_object,
    is_notification,
    notification_type,
    params_problems,
    request_id,
    shape_error,
    without_null_id,
)
from citewarden.lsp.isolation import isolated
from citewarden.lsp.memory import reuse_large_blocks
from citewarden.lsp.output import PAUSE, PipeWriter, backed_up
from citewarden.lsp.pipe import PipeReader
from citewarden.lsp.redaction import RedactingFilter
from citewarden.lsp.session import Session
from citewarden.parsing.bibtex import reader_kind
from citewarden.redaction import RedactingFormatter
from citewarden.safe_text import visible

log = logging.getLogger(__name__)

NAME = "citewarden"
#: What pygls says of params that do not fit, when nothing more can be said.
_INVALID_PARAMS = JsonRpcInvalidParams().message


@dataclass(frozen=True, slots=True)
class _UnreadableRequest:
    """A request whose params could not be read into the method's types."""

    id: int | str
    method: str
    error: JsonRpcException


@dataclass(frozen=True, slots=True)
class _InvalidRequest:
    """A body that is JSON but no JSON-RPC message the server reads: answered with Invalid
    Request, under its id, or id null when it has none the server can use."""

    id: int | str | None
    reason: str


@dataclass(frozen=True, slots=True)
class _NotificationWithId:
    """A notification sent with an id, as a request is: handled as the notification it
    is, and its id answered with Invalid Request saying so (a client waits for it)."""

    id: int | str
    method: str
    message: Any


@dataclass(frozen=True, slots=True)
class _UnreadNotification:
    """A notification the server lets go: of a method it does not handle (error None), or
    whose params could not be read.  Nothing is sent: a notification gets no answer."""

    method: str
    error: JsonRpcException | None


def _invalid(message: Any) -> list[_InvalidRequest]:
    """The answers to a decoded body that pygls did not make a message (none for a message):
    a batch (LSP sends none: each request in it is answered, or the batch once), a body
    that is not an object, an object without ``"jsonrpc"``."""
    if isinstance(message, list):
        reason = "Invalid Request: a batch (LSP sends one message at a time)"
        ids = [i for i in map(_batch_member_id, message) if i is not None]
        return [_InvalidRequest(i, reason) for i in ids] or [_InvalidRequest(None, reason)]
    if isinstance(message, dict):
        msg_id = request_id(message.get("id")) if "method" in message else None
        return [_InvalidRequest(msg_id, 'Invalid Request: no "jsonrpc": "2.0"')]
    if message is None or isinstance(message, str | int | float):
        return [_InvalidRequest(None, "Invalid Request: not a JSON object")]
    return []


def _batch_member_id(member: Any) -> int | str | None:
    """The id of a request in a batch, or None for anything else."""
    if isinstance(member, RPCRequest | _UnreadableRequest | _InvalidRequest):
        return cast(int | str | None, member.id)
    if isinstance(member, dict) and "method" in member:
        return request_id(member.get("id"))
    return None


class _FutureTable(dict[Any, Any]):
    """pygls' table of request futures, walked over a copy: a future's done-callback takes
    it out of the table (:meth:`CitewardenProtocol._forget_future`), and ``shutdown``
    cancels the futures while it walks the table, so each cancel changed the table under
    the walk."""

    def items(self) -> list[tuple[Any, Any]]:  # type: ignore[override]
        return list(super().items())

    def values(self) -> list[Any]:  # type: ignore[override]
        return list(super().values())

    def keys(self) -> list[Any]:  # type: ignore[override]
        return list(super().keys())

    def __iter__(self) -> Iterator[Any]:
        return iter(list(super().keys()))


def _forget_taken(taken: set[Any], msg_id: Any, _: Any) -> None:
    taken.discard(msg_id)


class CitewardenProtocol(LanguageServerProtocol):
    """pygls' protocol with the server's own document buffers (see :mod:`.documents`), and
    every string the client sends made text (:mod:`.incoming`), and the errors JSON-RPC
    requires where pygls stays silent: a request with invalid params
    gets InvalidParams, and every request after ``shutdown`` gets InvalidRequest, as does
    JSON that is no JSON-RPC message (a body that is not JSON gets Parse error, see
    :meth:`CitewardenServer.report_server_error`); a notification no handler takes, or
    whose params do not fit, is logged and never answered nor shown."""

    _server: CitewardenServer
    _closing = False
    #: whether ``initialize`` was received: requests before it are refused
    _initialize_received = False
    #: the process's exit status, set by ``exit``: 0 after ``shutdown``, else 1 (as the
    #: protocol requires); 0 when the client just closes the stream
    exit_code = 0

    def _handle_request(self, msg_id: MsgId, method_name: str, params: Any) -> None:
        """pygls' call of a request's handler, the request counted while it is handled."""
        super()._handle_request(msg_id, method_name, params)
        future = self._request_futures.get(msg_id)
        if future is not None and not future.done():
            self._taken.add(msg_id)
            future.add_done_callback(partial(_forget_taken, self._taken, msg_id))

    def in_hand(self) -> int:
        """The editor's requests being handled now (not its notifications, nor the
        server's own requests waiting for its answers: only reading its messages can end
        those)."""
        return len(self._taken)

    def structure_message(self, data: dict[str, Any]) -> Any:
        data = clean_object(data)
        if "jsonrpc" in data and (reason := shape_error(data)) is not None:
            return _InvalidRequest(request_id(data.get("id")), reason)
        if "jsonrpc" in data:
            data = without_null_id(data)
        if data.get("method") == TOO_LARGE and "jsonrpc" in data:
            refused = refusal(data.get("params"))
            if refused is not None:
                return refused
        if is_notification(data):
            return self._notification(data)
        if notification_type(self.get_message_type(str(data.get("method", "")))):
            msg_id = request_id(data.get("id"))
            read = self._notification({k: v for k, v in data.items() if k != "id"})
            return read if msg_id is None else _NotificationWithId(msg_id, data["method"], read)
        try:
            return self._structured(data)
        except JsonRpcException as exc:
            msg_id, method = data.get("id"), data.get("method")
            if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) and method:
                return _UnreadableRequest(msg_id, str(method), exc)
            raise

    def _notification(self, data: dict[str, Any]) -> Any:
        """The notification ``data`` read, params it has none of read as
        :func:`.incoming.absent_params`; an :class:`_UnreadNotification` for a method no
        handler takes (LSP lets ``$/`` ones be ignored) or for params that do not fit."""
        method = data["method"]
        if not self._handles(method):
            return _UnreadNotification(method, None)
        if "params" not in data:
            data = {**data, "params": absent_params(self.get_message_type(method))}
        try:
            return self._structured(data)
        except JsonRpcException as exc:
            return _UnreadNotification(method, exc)

    def _structured(self, data: dict[str, Any]) -> Any:
        """pygls' reading of a message into the method's types, without the traceback it
        logs at ERROR when the params do not fit: that is the client's mistake, answered
        with InvalidParams (a line of the log says so, :meth:`_handle`)."""
        if "jsonrpc" not in data:
            return data  # an object within the message
        kind = self._message_type(data)
        # JSON-RPC lets a request or notification leave out params (one of a method no
        # handler takes is answered MethodNotFound), and a response without a result is
        # one to a request that returns nothing
        if kind in (JsonRPCRequestMessage, JsonRPCNotification) and "params" not in data:
            data = {**data, "params": None}
        elif kind is JsonRPCResponseMessage and "result" not in data:
            data = {**data, "result": None}
        try:
            return self._converter.structure(data, kind)
        except ClassValidationError as exc:
            raise JsonRpcInvalidParams(params_problems(exc)) from exc
        except Exception as exc:
            log.exception("reading a %s message failed", visible(str(data.get("method"))))
            raise JsonRpcInternalError() from exc

    def _message_type(self, data: dict[str, Any]) -> Any:
        if "id" not in data:
            return self.get_message_type(data.get("method", "")) or JsonRPCNotification
        if "error" in data:
            return ResponseErrorMessage
        if "method" in data:
            return self.get_message_type(data["method"]) or JsonRPCRequestMessage
        return self._result_types.pop(data["id"], None) or JsonRPCResponseMessage

    def _handles(self, method: str) -> bool:
        """Whether a notification of ``method`` has a handler."""
        fm = self.fm
        return (
            method == types.CANCEL_REQUEST or method in fm.builtin_features or method in fm.features
        )

    #: True while a decoded message is handled, and after handling it raised (until the
    #: reading loop reports that): an error the loop reports without it came from decoding
    #: the body (see :meth:`CitewardenServer.report_server_error`).
    handling = False

    def handle_message(self, message: Any) -> None:
        self.handling = True
        self._handle(message)
        self.handling = False

    def _handle(self, message: Any) -> None:
        invalid = [message] if isinstance(message, _InvalidRequest) else _invalid(message)
        if invalid:
            for answer in invalid:
                self._answer_invalid(answer)
            return
        if isinstance(message, Refusal):
            self._refuse(message)
            return
        if isinstance(message, _NotificationWithId):
            said = f"{message.method} is a notification, sent without an id: it was taken as one"
            log.warning("request %s: %s", visible(str(message.id)), said)
            self._send_response(message.id, error=JsonRpcInvalidRequest(said).to_response_error())
            self._handle(message.message)
            return
        if isinstance(message, _UnreadNotification):
            _let_go(message)
            return
        if not self._admitted(message):
            return
        if isinstance(message, _UnreadableRequest):
            error = message.error
            if isinstance(error, JsonRpcInvalidParams):
                said = f": {error.message}" if error.message != _INVALID_PARAMS else ""
                error = JsonRpcInvalidParams(f"invalid params for {message.method}{said}")
                log.warning("request %s: %s", visible(str(message.id)), error.message)
            self._send_response(message.id, error=error.to_response_error())
            return
        if isinstance(message, types.ExitNotification):
            self.exit_code = 0 if self._closing or self._shutdown else 1
        if isinstance(message, RPCRequest) and message.method != types.EXIT:
            if self._closing or self._shutdown:
                error = JsonRpcInvalidRequest(f"{message.method}: the server is shutting down")
                self._send_response(message.id, error=error.to_response_error())
                return
            if message.method == types.SHUTDOWN:
                self._closing = True
        super().handle_message(message)

    def _admitted(self, message: Any) -> bool:
        """Whether ``message`` is handled by the session's lifecycle: before ``initialize`` a
        request gets ServerNotInitialized and a notification other than ``exit`` is let go;
        a second ``initialize`` gets InvalidRequest and changes nothing."""
        unreadable = isinstance(message, _UnreadableRequest)
        if not (unreadable or isinstance(message, RPCNotification)):
            return True  # a response, to a request of the server's
        method = message.method
        if method == types.EXIT:
            return True
        request = unreadable or isinstance(message, RPCRequest)
        if method == types.INITIALIZE and request:
            if self._initialize_received:
                error = JsonRpcInvalidRequest("initialize: the server is already initialized")
                self._send_response(message.id, error=error.to_response_error())
                return False
            self._initialize_received = not unreadable  # params that do not fit: try again
            return True
        if self._initialize_received:
            return True
        if request:
            not_yet = JsonRpcServerNotInitialized(f"{method}: the server is not initialized")
            self._send_response(message.id, error=not_yet.to_response_error())
        else:
            log.debug("ignoring the notification %s: the server is not initialized", method)
        return False

    def _answer_invalid(self, answer: _InvalidRequest) -> None:
        """Invalid Request, written by hand: pygls leaves out an id that is null."""
        error = {"code": JsonRpcInvalidRequest.CODE, "message": answer.reason}
        self._send_data({"jsonrpc": "2.0", "id": answer.id, "error": error})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_futures = _FutureTable(self._request_futures)
        #: The ids of the editor's requests being handled.
        self._taken: set[Any] = set()

    def _execute_handler(
        self,
        msg_id: MsgId,
        handler: Any,
        callback: Callable[[Future[Any]], None],
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        """pygls' handler call, the future it files under ``msg_id`` taken out when done.

        pygls files the future of a notification (and of each step of a generator handler)
        under a fresh id that nothing removes, only a response does: every didChange kept
        about 2 KB for as long as the server ran."""
        forget = partial(self._forget_future, msg_id=msg_id, callback=callback)
        super()._execute_handler(msg_id, handler, forget, args, kwargs)

    def _send_handler_result(self, future: Future[Any], *, msg_id: MsgId) -> None:
        """pygls' answer to a request, but an error a handler raised on purpose (InvalidParams
                for arguments it cannot use, say) is logged as one line, where pygls logged it with
                its traceback at ERROR (a handler raises JsonRpcInternalError with a message that says
        what failed, a report that could not be written, say); any other exception is a fault of
        the server's and still is (see :meth:`_send_response`)."""
        error = None if future.cancelled() else future.exception()
        if not isinstance(error, JsonRpcException):
            super()._send_handler_result(future, msg_id=msg_id)
            return
        self._request_futures.pop(msg_id, None)
        level = logging.WARNING if error.code in _CLIENT_MISTAKES else logging.ERROR
        log.log(level, "request %s: %s", visible(str(msg_id)), error.message)
        self._send_response(msg_id, error=error.to_response_error())

    def _send_response(
        self, msg_id: MsgId, result: Any | None = None, error: Any | None = None
    ) -> None:
        """pygls' answer, without the server's traceback pygls puts in an error's ``data``
        (the server's file paths are none of the client's business; the log has it)."""
        if error is not None and isinstance(error.data, dict) and "traceback" in error.data:
            rest = {k: v for k, v in error.data.items() if k != "traceback"}
            error = types.ResponseError(code=error.code, message=error.message, data=rest or None)
        super()._send_response(msg_id, result, error)

    def _forget_future(
        self, future: Future[Any], *, msg_id: MsgId, callback: Callable[[Future[Any]], None]
    ) -> None:
        if self._request_futures.get(msg_id) is future:
            self._request_futures.pop(msg_id, None)
        callback(future)

    def _refuse(self, refused: Refusal) -> None:
        """A message over the size limit, or one memory ran out reading (:mod:`.framing`):
        logged and shown, and a request answered with InvalidRequest (InternalError when
        memory ran out: the request was no mistake)."""
        log.error("%s", refused.text)
        self._server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=refused.text)
        )
        if refused.request_id is not None:
            kind = JsonRpcInternalError if refused.out_of_memory else JsonRpcInvalidRequest
            error = kind(refused.text)
            self._send_response(refused.request_id, error=error.to_response_error())

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Any:
        self._server.session.documents.open(params.text_document)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Any:
        self._server.session.documents.change(params)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Any:
        self._server.session.documents.close(params.text_document.uri)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


class _InputEnd:
    """The editor's input as pygls reads it (``readline()``, ``read(n)``): when it ends (the
    editor is gone, or closed it without ``exit``) the process ends on the event loop, as
    at ``exit`` (:func:`end_process`), where the loop went on to wait for the work still
    running (a check of a big workspace) however long it took.  No line is read while the
    editor leaves too much of the server's output unread (:mod:`.output`)."""

    def __init__(self, stream: BoundedInput, server: CitewardenServer, output: PipeWriter) -> None:
        self._stream = stream
        self._server = server
        self._output = output

    def readline(self) -> bytes:
        while backed_up(self._server.handling(), self._output.waiting):
            time.sleep(PAUSE)
        line = self._stream.readline()
        if not line:
            self._ended()
        return line

    def read(self, size: int) -> bytes:
        data = self._stream.read(size)
        if not data:
            self._ended()
        return data

    def _ended(self) -> None:
        loop = self._server.loop
        if loop is not None and not loop.is_closed():
            code = cast(CitewardenProtocol, self._server.protocol).exit_code
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(end_process, code, self._output)


class CitewardenServer(LanguageServer):
    """A pygls server holding one :class:`Session`."""

    #: The event loop serving the editor, once ``initialize`` came.
    loop: asyncio.AbstractEventLoop | None = None
    #: The editor's input, as read within bounds (the last body's start is asked for when
    #: decoding it fails).
    _input: BoundedInput | BoundedStream | None = None
    #: The server's output to the editor over stdio, written by a thread of its own.
    output: PipeWriter | None = None

    def __init__(self) -> None:
        super().__init__(
            NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=CitewardenProtocol,
            converter_factory=plain_json_converter,
        )
        self.session = Session(self)
        _quiet_unread_bodies(logging.getLogger("pygls.server"))  # the stdio reading loop's
        _quiet_unread_bodies(log)  # the TCP one's

    def handling(self) -> int:
        """The editor's requests being handled now."""
        return cast(CitewardenProtocol, self.protocol).in_hand()

    def message_limit(self) -> int:
        """The largest message body read from the editor, by the current settings."""
        return message_limit(self.session.settings.max_file_bytes)

    def start_stdio(self) -> None:
        """pygls' stdio server, standard input read through :class:`.framing.BoundedInput`;
        the process ends once it ends (:class:`_InputEnd`); standard output is written by a
        :class:`.output.PipeWriter`, so an editor that reads none of it blocks no handler."""
        self._input = BoundedInput(PipeReader(sys.stdin.fileno()), self.message_limit)
        self.output = PipeWriter(sys.stdout.fileno())
        stdin = _InputEnd(self._input, self, self.output)
        # pygls calls readline() and read(n) of the one, write(b) and flush() of the other
        self.start_io(stdin=cast(BinaryIO, stdin), stdout=cast(BinaryIO, self.output))

    def start_tcp(self, host: str, port: int) -> None:
        """pygls' TCP server, each connection read through :class:`.framing.BoundedStream`."""
        self._stop_event = stop_event = threading.Event()
        serving: list[asyncio.StreamWriter] = []  # the editor's connection, once it came

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if serving:  # one editor per server: another connection would take its answers
                log.warning("a second connection was closed: the server serves one editor")
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()
                return
            serving.append(writer)
            self.protocol.set_writer(writer)
            stream = self._input = BoundedStream(reader, self.message_limit)
            await run_async(
                stop_event=stop_event,
                reader=_Drained(stream, writer, self.handling),
                protocol=self.protocol,
                logger=log,
                error_handler=self.report_server_error,
            )
            # the editor is gone: the process ends now, as at the end of standard input
            end_process(cast(CitewardenProtocol, self.protocol).exit_code)

        async def serve() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        log.info("serving on %s:%s", host, port)
        with contextlib.suppress(asyncio.CancelledError):
            asyncio.run(serve())

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A message that could not be decoded gets the Parse error JSON-RPC requires (id
        null): a body that is not JSON or not UTF-8, and valid JSON Python cannot read
        (nested 200 000 deep: RecursionError; a number of 5 000 digits: ValueError)."""
        # pygls' reading loop decodes and handles each body in one try, and reports what
        # either raised with the source JsonRpcException
        protocol = self.protocol
        decoding = isinstance(protocol, CitewardenProtocol) and not protocol.handling
        if isinstance(protocol, CitewardenProtocol):
            protocol.handling = False
        if isinstance(error, MemoryError) and source is JsonRpcException:
            self._out_of_memory(decoding)
            return
        unreadable = isinstance(error, ValueError | RecursionError) and decoding
        if unreadable and source is JsonRpcException:
            error_object = {"code": JsonRpcParseError.CODE, "message": _parse_error(error)}
            self.protocol._send_data({"jsonrpc": "2.0", "id": None, "error": error_object})
            return
        super().report_server_error(error, source)

    def _out_of_memory(self, decoding: bool) -> None:
        """Memory ran out decoding the last body (its request, if its start tells which,
        gets an error answer) or handling a message; the server goes on either way."""
        protocol = cast(CitewardenProtocol, self.protocol)
        if decoding:
            size, head = self._input.last if self._input is not None else (0, b"")
            fields = top_level_fields(head.decode("utf-8", "replace"))
            protocol._refuse(out_of_memory(fields, size, "decoding"))
            return
        text = "the server ran out of memory handling a message from the editor; it goes on"
        log.error("%s", text)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=text)
        )


#: Error codes that say the client's request was wrong, not the server.
_CLIENT_MISTAKES = frozenset(
    {
        JsonRpcInvalidParams.CODE,
        JsonRpcInvalidRequest.CODE,
        JsonRpcServerNotInitialized.CODE,
        JsonRpcRequestCancelled.CODE,
    }
)


class _UnreadBodies(logging.Filter):
    """pygls' reading loop logs a body it could not read (not JSON, or no message the server
    reads) with its traceback at ERROR: the client's mistake, made one line of warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if record.msg != "Unable to handle message":
            return True
        if isinstance(error, ValueError | RecursionError | JsonRpcException):
            reason = str(error) if isinstance(error, JsonRpcException) else _parse_error(error)
            record.msg, record.args = "a message from the editor could not be read: %s", (reason,)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
        elif isinstance(error, MemoryError):
            return False  # one line says which message it was (report_server_error)
        return True


def _quiet_unread_bodies(logger: logging.Logger) -> None:
    if not any(isinstance(f, _UnreadBodies) for f in logger.filters):
        logger.addFilter(_UnreadBodies())


def _let_go(message: _UnreadNotification) -> None:
    """Log a notification the server does not act on; the client hears nothing of it."""
    if message.error is None:
        log.debug("ignoring the notification %s: no handler", message.method)
    else:
        log.warning("ignoring the notification %s: %s", message.method, message.error)


def _parse_error(error: Exception) -> str:
    if isinstance(error, RecursionError):
        return "Parse error: JSON nested too deep"
    if isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
        return "Parse error"
    if "digits" in str(error):
        return "Parse error: a number of too many digits"
    return "Parse error"


class _Drained:
    """A TCP connection as pygls reads it, no line read while the editor leaves too much
    unread or unanswered (:func:`.output.backed_up`)."""

    def __init__(
        self, stream: BoundedStream, writer: asyncio.StreamWriter, handling: Callable[[], int]
    ) -> None:
        self._stream = stream
        self._writer = writer
        self._handling = handling

    async def readline(self) -> bytes:
        transport = self._writer.transport
        while not transport.is_closing() and backed_up(
            self._handling(), transport.get_write_buffer_size()
        ):
            await asyncio.sleep(PAUSE)
        return await self._stream.readline()

    async def readexactly(self, n: int) -> bytes:
        return await self._stream.readexactly(n)


def end_process(code: int, output: PipeWriter | None = None) -> NoReturn:
    """``exit``: end the process now, with ``code``.  Work still running in the server's
    threads (a check of a big workspace, a request) would otherwise hold the process until
    it ends, however long that is (the event loop waits for its tasks, the interpreter for
    its threads); what it would make is for no one, and the files it reads stay as they
    are.  The log and the standard streams are flushed first, and what waits in ``output``
    for at most a second."""
    if output is not None:
        output.drain(1.0)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    logging.shutdown()
    os._exit(code)


def _empty_list() -> list[Any]:
    return []


def create_server() -> CitewardenServer:
    server = CitewardenServer()
    session = server.session
    feature: Callable[..., Any] = server.feature

    @feature(types.INITIALIZE)
    @isolated()
    def initialize(params: types.InitializeParams) -> None:
        server.loop = asyncio.get_running_loop()
        session.initialize(params)
        if session.pull_mode:
            server.feature(
                types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DiagnosticOptions(
                    identifier=NAME, inter_file_dependencies=True, workspace_diagnostics=False
                ),
            )(pull_diagnostics)

    @isolated(lambda: types.RelatedFullDocumentDiagnosticReport(items=[]))
    async def pull_diagnostics(params: types.DocumentDiagnosticParams) -> Any:
        return await session.pull_diagnostics(params)

    @feature(types.INITIALIZED)
    @isolated()
    async def initialized(params: types.InitializedParams) -> None:
        session.show_pending_problems()
        service.preload()
        if await watch.register(session):
            await watch.watch_settings_above(session)
        await _register_configuration(server)
        session.tasks.spawn("workspace", "index", session.start())

    @feature(types.SHUTDOWN)
    @isolated()
    async def shutdown(params: None) -> None:
        await session.close()

    @feature(types.EXIT)
    def exit_now(params: None) -> None:
        end_process(cast(CitewardenProtocol, server.protocol).exit_code, server.output)

    @feature(types.TEXT_DOCUMENT_DID_OPEN)
    @isolated()
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        session.sync.did_open(params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @isolated()
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        session.sync.did_change(params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_DID_SAVE)
    @isolated()
    async def did_save(params: types.DidSaveTextDocumentParams) -> None:
        await watch.saved(session, params.text_document.uri)
        await session.sync.did_save(params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @isolated()
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        session.sync.did_close(params.text_document.uri)

    @feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    @isolated()
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        await session.settings_changed(params.settings)

    @feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @isolated()
    async def did_change_watched_files(params: types.DidChangeWatchedFilesParams) -> None:
        await watch.files_changed(session, params)

    @feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @isolated()
    async def did_change_workspace_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        await session.sync.folders_changed(
            [f.uri for f in params.event.added], [f.uri for f in params.event.removed]
        )
        await watch.watch_settings_above(session)

    navigation.register(server, session)
    actions.register(server, session)
    # verification of the entries in the background (diagnostics, actions, commands)
    service = verify_actions.register(server, session)
    # "Add entry" for dangling keys and the citewarden.addReference command
    add_reference.register(server, session, service)
    return server


async def _register_configuration(server: LanguageServer) -> None:
    """Ask for didChangeConfiguration notifications when the client needs registering."""
    ws = server.client_capabilities.workspace
    dcc = ws.did_change_configuration if ws is not None else None
    if dcc is None or not dcc.dynamic_registration:
        return
    try:
        await answer(
            server.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="citewarden-configuration",
                            method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                            register_options={"section": "citewarden"},
                        )
                    ]
                )
            ),
            "client/registerCapability (configuration)",
        )
    except NoAnswer:
        pass  # logged
    except Exception:
        log.warning("client refused configuration registration", exc_info=True)


# ----------------------------------------------------------------------------------------
# Command line
# ----------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="citewarden serve", description="Run the citewarden language server."
    )
    p.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead")
    p.add_argument("--log-file", metavar="PATH", help="write the log here (default: stderr)")
    p.add_argument(
        "--log-level",
        default="warning",
        choices=["debug", "info", "warning", "error"],
        help="log level (default: warning)",
    )
    return p


def _configure_logging(log_file: str | None, level: str) -> None:
    handler: logging.Handler
    handler = (
        logging.FileHandler(log_file, encoding="utf-8")
        if log_file
        else logging.StreamHandler(sys.stderr)
    )
    # every line is redacted: API keys never reach the log, whoever logs them
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())  # and the values of secret-named settings
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # pygls logs every message at INFO; keep it quieter unless debugging.
    if level != "debug":
        logging.getLogger("pygls").setLevel(logging.WARNING)


def main(argv: list[str]) -> int:
    """``citewarden serve [--stdio] [--tcp HOST:PORT] [--log-file F] [--log-level L]``."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 0 if exc.code == 0 else 2
    host = port = None
    if args.tcp:
        host, _, port_text = args.tcp.rpartition(":")
        if not host or not (port_text.isascii() and port_text.isdigit() and len(port_text) <= 5):
            print("citewarden serve: --tcp expects HOST:PORT", file=sys.stderr)
            return 2
        port = int(port_text)
        if not 0 < port < 65536:
            print(
                f"citewarden serve: --tcp port {port} is not between 1 and 65535", file=sys.stderr
            )
            return 2
    try:
        _configure_logging(args.log_file, args.log_level)
    except OSError as exc:
        print(f"citewarden serve: cannot open log file: {exc}", file=sys.stderr)
        return 2
    reuse_large_blocks()
    favour_requests()
    log.info("citewarden %s (BibTeX reader: %s)", __version__, reader_kind())
    server = create_server()
    if host is not None and port is not None:
        server.start_tcp(host, port)
    else:
        server.start_stdio()
    # pygls ends the loop on ``exit`` with the status the protocol asks for, and then
    # swallows it: give it back
    return cast(CitewardenProtocol, server.protocol).exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
