// The room's sound on the TV page (CONTRACT 4.5): the box's music beds and effects from /v1/sounds and
// the voice clips of AUDIO_PLAY, played with the Web Audio API at their startAtServerMs on the page's
// clock estimate. The mix follows the box's own (Mixer.swift): the music fades in, crossfades and
// fades out, drops 12 dB under the voice, and follows the host's level; effects overlap freely.
//
// Nothing is created or fetched before the viewer switches the sound on: a browser only lets a page
// start an AudioContext from a tap or a key press, so `start()` is called from the button's handler.

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
  /** `clock.now()`: the box's time in ms, as this page estimates it. */
  constructor(clock) {
    this.clock = clock;
    this.context = null;
    this.buffers = new Map();
    this.listing = null;
    // Playing or scheduled: the bed (at most one that is not fading out), voice lines and effects.
    this.bed = null;
    this.voices = new Set();
    this.effects = new Set();
    // Bumped by AUDIO_STOP: a line still being fetched when it came is not played.
    this.stops = 0;
    this.gainDb = -8;
  }

  get on() {
    return this.context != null;
  }

  /**
   * Switches the sound on (from a tap: browsers only start audio then). Resolves once the beds and
   * effects are loaded, so the first cues after it are on time; `musicTrackId` is the bed under way.
   */
  async start({ musicTrackId = null, gainDb = -8 } = {}) {
    if (this.context) return;
    const context = new AudioContext({ latencyHint: "playback" });
    this.context = context;
    this.gainDb = gainDb;
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
    // Without a tap a browser may hold the context back: resume() then waits for one, and the
    // sounds load meanwhile (the caller sees the state and says so).
    await Promise.race([context.resume().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 300))]);
    this.listing ??= fetch("/v1/sounds")
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
      .catch((e) => {
        // Asked again the next time the sound is switched on.
        this.listing = null;
        console.info("The box's sounds are not available:", e.message);
        return { sounds: [] };
      });
    const listing = await this.listing;
    if (this.context !== context) return;
    await Promise.all(listing.sounds.map((sound) => this.load(sound.soundId)));
    if (musicTrackId && this.context === context) this.setMusic({ trackId: musicTrackId, startAtServerMs: this.clock.now(), gainDb });
  }

  /** Switches the sound off: everything stops at once, and the context is closed. */
  stop() {
    const context = this.context;
    if (!context) return;
    this.context = null;
    this.bed = null;
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

  /** The context's time at which a cue for `startAtServerMs` is heard (now, if that has passed). */
  when(startAtServerMs) {
    const ahead = ((startAtServerMs ?? 0) - this.clock.now()) / 1000;
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
        this.setMusic(payload);
        break;
      case "MUSIC_STOP":
        this.stopMusic(payload.fadeOutMs ?? 600);
        break;
      case "MUSIC_GAIN_SET":
        this.gainDb = payload.gainDb;
        this.music.gain.setTargetAtTime(musicGain(payload.gainDb), this.context.currentTime, 0.05);
        break;
      case "SFX_PLAY":
        this.effect(payload);
        break;
      case "AUDIO_PLAY":
        this.line(payload);
        break;
      case "AUDIO_STOP":
        this.stopLines();
        break;
    }
  }

  async setMusic({ trackId, startAtServerMs, gainDb }) {
    const context = this.context;
    // The bed is known now: a MUSIC_STOP that comes while it loads stops it.
    const bed = { trackId, node: null, gain: null };
    const before = this.bed;
    this.bed = bed;
    if (gainDb != null) {
      this.gainDb = gainDb;
      this.music.gain.setTargetAtTime(musicGain(gainDb), context.currentTime, 0.05);
    }
    const buffer = await this.load(trackId);
    if (!buffer || this.context !== context || this.bed !== bed) return;
    const at = this.when(startAtServerMs);
    Object.assign(bed, this.source(buffer, this.music, { loop: true }));
    bed.gain.gain.setValueAtTime(0, at);
    bed.gain.gain.linearRampToValueAtTime(1, at + MUSIC_FADE_IN_S);
    bed.node.start(at);
    if (before?.node) this.fadeOut(before, at, CROSSFADE_S);
  }

  stopMusic(fadeOutMs) {
    const bed = this.bed;
    this.bed = null;
    if (bed?.node) this.fadeOut(bed, this.context.currentTime, fadeOutMs / 1000);
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

  /** AUDIO_PLAY: a line of the voice; a new line takes over from one still being spoken. */
  async line({ url, startAtServerMs }) {
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
    for (const other of this.voices) this.fadeOut(other, at, STOP_FADE_S);
    const sound = this.source(buffer, this.voice);
    this.voices.add(sound);
    sound.node.onended = () => this.voices.delete(sound);
    sound.node.start(at);
    // The music makes room for the line, and comes back after it.
    const duck = this.duck.gain;
    duck.cancelScheduledValues(at);
    duck.setTargetAtTime(DUCK, at, DUCK_ATTACK_S / 3);
    duck.setTargetAtTime(1, at + buffer.duration + VOICE_HANGOVER_S, DUCK_RELEASE_S / 3);
  }

  /** AUDIO_STOP: the line and the effects fade out, and those still loading are called off. */
  stopLines() {
    this.stops++;
    const now = this.context.currentTime;
    for (const sound of [...this.voices, ...this.effects]) this.fadeOut(sound, now, STOP_FADE_S);
    this.voices.clear();
    this.effects.clear();
    const duck = this.duck.gain;
    duck.cancelScheduledValues(now);
    duck.setTargetAtTime(1, now, DUCK_RELEASE_S / 3);
  }
}
