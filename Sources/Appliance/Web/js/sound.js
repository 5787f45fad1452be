// The room's sound on the TV page (CONTRACT 4.5): the box's music beds and effects from /v1/sounds and
// the voice clips of AUDIO_PLAY, played with the Web Audio API at their startAtServerMs on the page's
// clock estimate. The mix follows the box's own (Mixer.swift): the music fades in, crossfades and
// fades out, drops 12 dB under the voice, and follows the host's level; effects overlap freely; a
// line takes over from the one speaking and calls off those still waiting to start after it.
//
// The AudioContext is made when the sound is switched on. Browsers let it run only after a tap on the
// page: until it runs (`running`), nothing is scheduled (it would all sound at once on the tap), and
// the bed under way is started when it does.

/** How far the music drops while the voice speaks, and how quickly (the box's Mixer.Levels). */
const DUCK = 10 ** (-12 / 20);
const DUCK_ATTACK_S = 0.06;
const DUCK_RELEASE_S = 0.45;
/** The voice counts as speaking this long after its line, so the music does not swell between lines. */
const VOICE_HANGOVER_S = 0.25;
const MUSIC_FADE_IN_S = 0.5;
const CROSSFADE_S = 0.6;
const EFFECTS_GAIN = 10 ** (-2 / 20);
/** Any host level at or below this is "off". */
const MUSIC_OFF_DB = -59;
/** AUDIO_STOP fades what sounds over this long rather than cutting it. */
const STOP_FADE_S = 0.08;

/** The host's level in dB as a gain. */
export function musicGain(db) {
  return db <= MUSIC_OFF_DB ? 0 : 10 ** (db / 20);
}

export class RoomAudio {
  /**
   * `clock.now()`: the box's time in ms, as this page estimates it. `onRunning`: called when the
   * context starts running (at once, or at the tap the browser waited for).
   */
  constructor(clock, { onRunning = () => {} } = {}) {
    this.clock = clock;
    this.onRunning = onRunning;
    this.context = null;
    this.buffers = new Map();
    this.listing = null;
    // The bed asked for last (playing, or still loading), and every bed that has started and not
    // faded out yet.
    this.bed = null;
    this.beds = new Set();
    // Lines playing or scheduled ({ node, gain, at, end, seq }), and effects.
    this.voices = new Set();
    this.effects = new Set();
    // Lines in the order they came; a line overtaken by a later one is not played.
    this.lines = 0;
    // Bumped by AUDIO_STOP: a line or effect still loading when it came is not played.
    this.stops = 0;
    // Bumped by MUSIC_SET and MUSIC_STOP: the bed asked for at start() gives way to either.
    this.musicSince = 0;
  }

  get on() {
    return this.context != null;
  }

  /** Whether the browser lets the sound out (a context held back until a tap is not). */
  get running() {
    return this.context?.state === "running";
  }

  /**
   * Switches the sound on, loading every bed and effect (so the cues after it start on time). The
   * bed `musicTrackId`, the one under way, starts once the context runs (at `startAtServerMs` if
   * that is still to come), unless a MUSIC_SET or MUSIC_STOP came meanwhile.
   */
  async start({ musicTrackId = null, startAtServerMs = null, gainDb = -8 } = {}) {
    if (this.context) return;
    const context = new AudioContext({ latencyHint: "interactive" });
    this.context = context;
    this.master = context.createGain();
    this.master.connect(context.destination);
    this.music = context.createGain();
    this.music.gain.value = musicGain(gainDb);
    this.duck = context.createGain();
    this.music.connect(this.duck).connect(this.master);
    this.voice = context.createGain();
    this.voice.connect(this.master);
    this.sfx = context.createGain();
    this.sfx.gain.value = EFFECTS_GAIN;
    this.sfx.connect(this.master);
    const musicBefore = this.musicSince;
    this.listing ??= fetch("/v1/sounds")
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
      .catch((e) => {
        // Asked again the next time the sound is switched on.
        this.listing = null;
        console.info("The box's sounds are not available:", e.message);
        return { sounds: [] };
      });
    context.addEventListener("statechange", () => {
      if (this.context === context && context.state === "running") this.onRunning();
    });
    // Without a tap the browser may hold the context back: resume() then waits for one.
    context.resume().catch(() => {});
    const listing = await this.listing;
    await Promise.all(listing.sounds.map((sound) => this.load(sound.soundId)));
    if (this.context !== context) return;
    // Held back, the bed waits for the context to run (`onRunning` starts the one under way then).
    if (musicTrackId && this.musicSince === musicBefore && this.running) {
      this.setMusic({ trackId: musicTrackId, startAtServerMs: this.bedStart(startAtServerMs), gainDb });
    }
  }

  /** Switches the sound off: everything stops at once, and the context is closed. */
  stop() {
    const context = this.context;
    if (!context) return;
    this.context = null;
    this.bed = null;
    this.beds.clear();
    this.voices.clear();
    this.effects.clear();
    this.stops++;
    context.close().catch(() => {});
  }

  /** A bed or effect of the box's, decoded once for the page's lifetime (tried again if it failed). */
  load(soundId) {
    let loading = this.buffers.get(soundId);
    if (!loading) {
      loading = (this.listing ?? Promise.resolve({ sounds: [] }))
        .then((listing) => listing.sounds.find((s) => s.soundId === soundId)?.url)
        .then((url) => (url ? this.decode(url) : null))
        .catch(() => null);
      this.buffers.set(soundId, loading);
      loading.then((buffer) => buffer || this.buffers.delete(soundId));
    }
    return loading;
  }

  /** A sound file fetched and decoded; an AudioBuffer plays on any context of the page. */
  async decode(url) {
    const response = await fetch(url);
    if (!response.ok || !this.context) return null;
    return await this.context.decodeAudioData(await response.arrayBuffer());
  }

  /**
   * The context's time at which a cue for `startAtServerMs` must start to be heard then (now, if
   * that has passed): the device's own delay is taken off.
   */
  when(startAtServerMs) {
    const latency = this.context.outputLatency || this.context.baseLatency || 0;
    const ahead = ((startAtServerMs ?? 0) - this.clock.now()) / 1000 - latency;
    return this.context.currentTime + Math.max(0, ahead);
  }

  /** A source of `buffer` through `into`, with its own gain for fades. */
  source(buffer, into, { loop = false } = {}) {
    const node = this.context.createBufferSource();
    node.buffer = buffer;
    node.loop = loop;
    const gain = this.context.createGain();
    node.connect(gain).connect(into);
    return { node, gain };
  }

  /** Fades a playing or scheduled sound out from `at` over `seconds`, then stops it. */
  fadeOut(sound, at, seconds) {
    const param = sound.gain.gain;
    param.cancelScheduledValues(at);
    param.setValueAtTime(param.value, at);
    param.linearRampToValueAtTime(0, at + seconds);
    try {
      sound.node.stop(at + seconds);
    } catch {
      // Stopped already.
    }
  }

  /** The sound event `type` of the box (MUSIC_SET, MUSIC_STOP, MUSIC_GAIN_SET, SFX_PLAY, AUDIO_PLAY, AUDIO_STOP). */
  handle(type, payload) {
    if (!this.context) return;
    switch (type) {
      case "MUSIC_SET":
        this.musicSince++;
        if (this.running) this.setMusic(payload);
        break;
      case "MUSIC_STOP":
        this.musicSince++;
        this.stopMusic(payload.fadeOutMs ?? 600);
        break;
      case "MUSIC_GAIN_SET":
        this.music.gain.setTargetAtTime(musicGain(payload.gainDb), this.context.currentTime, 0.05);
        break;
      case "SFX_PLAY":
        if (this.running) this.effect(payload);
        break;
      case "AUDIO_PLAY":
        // Counted even when not played: a line still loading is overtaken all the same.
        this.lines++;
        if (this.running) this.line(payload, this.lines);
        break;
      case "AUDIO_STOP":
        this.stopLines();
        break;
    }
  }

  /**
   * The bed the game has now (a snapshot after a reconnection, the context let out): started or
   * stopped if it differs. Held back, nothing is scheduled; this is called again when it runs.
   */
  follow({ musicTrackId, startAtServerMs, gainDb }) {
    if (!this.running || (this.bed?.trackId ?? null) === (musicTrackId ?? null)) return;
    if (musicTrackId) this.setMusic({ trackId: musicTrackId, startAtServerMs: this.bedStart(startAtServerMs), gainDb });
    else this.stopMusic(300);
  }

  /** A bed's start on this page: now, or later when it is still to come. */
  bedStart(startAtServerMs) {
    return Math.max(this.clock.now(), startAtServerMs ?? 0);
  }

  async setMusic({ trackId, startAtServerMs, gainDb }) {
    const context = this.context;
    const at = this.when(startAtServerMs);
    // Whatever played before fades out under the new bed's start, loaded or not.
    for (const before of this.beds) this.fadeOut(before, at, CROSSFADE_S);
    this.beds.clear();
    const bed = { trackId };
    this.bed = bed;
    if (gainDb != null) this.music.gain.setTargetAtTime(musicGain(gainDb), context.currentTime, 0.05);
    const buffer = await this.load(trackId);
    // A bed asked for after this one, or a stop, came while it loaded.
    if (!buffer || this.context !== context || this.bed !== bed) return;
    const sound = this.source(buffer, this.music, { loop: true });
    const start = Math.max(at, context.currentTime);
    sound.gain.gain.setValueAtTime(0, start);
    sound.gain.gain.linearRampToValueAtTime(1, start + MUSIC_FADE_IN_S);
    sound.node.start(start);
    this.beds.add(sound);
  }

  stopMusic(fadeOutMs) {
    this.bed = null;
    const now = this.context.currentTime;
    for (const bed of this.beds) this.fadeOut(bed, now, fadeOutMs / 1000);
    this.beds.clear();
  }

  async effect({ sfxId, startAtServerMs }) {
    const context = this.context;
    const stops = this.stops;
    const buffer = await this.load(sfxId);
    if (!buffer || this.context !== context || this.stops !== stops) return;
    const sound = this.source(buffer, this.sfx);
    this.effects.add(sound);
    sound.node.onended = () => this.effects.delete(sound);
    sound.node.start(this.when(startAtServerMs));
  }

  /**
   * AUDIO_PLAY number `seq`: a line of the voice. Lines load at their own pace, so the order they came
   * in decides: a line that a later one has overtaken (starting no later) is dropped, and a line
   * calls off the earlier ones still waiting to start at or after it and takes over from the one
   * speaking.
   */
  async line({ url, startAtServerMs }, seq) {
    const context = this.context;
    const stops = this.stops;
    let buffer = null;
    try {
      buffer = await this.decode(url);
    } catch {
      // A clip the box does not have (a pack's lines not rendered on this box) is just not heard.
    }
    if (!buffer || this.context !== context || this.stops !== stops) return;
    const at = this.when(startAtServerMs);
    for (const other of this.voices) {
      if (other.seq > seq && other.at <= at) return;
    }
    for (const other of [...this.voices]) {
      if (other.seq > seq) continue;
      // Earlier lines: the one speaking ends where this one starts; one still to come is called off.
      this.fadeOut(other, other.at < at ? at : context.currentTime, STOP_FADE_S);
      if (other.at >= at) this.voices.delete(other);
      else other.end = Math.min(other.end, at);
    }
    const sound = { ...this.source(buffer, this.voice), at, end: at + buffer.duration, seq };
    this.voices.add(sound);
    sound.node.onended = () => {
      this.voices.delete(sound);
    };
    sound.node.start(at);
    this.reduck();
  }

  /** The music's duck, from the lines playing and to come: down under each, up after the last. */
  reduck() {
    const now = this.context.currentTime;
    const duck = this.duck.gain;
    duck.cancelScheduledValues(now);
    duck.setValueAtTime(duck.value, now);
    // The lines' spans, those that touch made one: the music stays down between them.
    const spans = [];
    for (const v of [...this.voices].sort((a, b) => a.at - b.at)) {
      const span = [Math.max(v.at, now), v.end + VOICE_HANGOVER_S];
      if (span[1] <= now) continue;
      const last = spans[spans.length - 1];
      if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
      else spans.push(span);
    }
    for (const [start, end] of spans) {
      duck.setTargetAtTime(DUCK, start, DUCK_ATTACK_S / 3);
      duck.setTargetAtTime(1, end, DUCK_RELEASE_S / 3);
    }
  }

  /** AUDIO_STOP: the line and the effects fade out, and those still loading are called off. */
  stopLines() {
    this.stops++;
    const now = this.context.currentTime;
    for (const sound of [...this.voices, ...this.effects]) this.fadeOut(sound, now, STOP_FADE_S);
    this.voices.clear();
    this.effects.clear();
    this.reduck();
    this.duck.gain.setTargetAtTime(1, now, DUCK_RELEASE_S / 3);
  }
}
