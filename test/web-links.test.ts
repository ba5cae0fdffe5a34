// The web app's reading of web addresses (web/src/board/nodes/web-links.ts): which text is one
// http(s) address (Add link, a paste, a drop), which addresses are YouTube or Vimeo videos and the
// privacy-enhanced player each plays in, and what a url card shows. The pages themselves are
// tested in Chromium (test/e2e/cards.test.ts); these are the address forms a browser test cannot
// cover one by one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressParts, checkLink, firstUriListEntry, linkNodeType, singleUrl, videoOf } from '../web/src/board/nodes/web-links.js';

test('one http(s) address is a link; anything else is refused with a reason', () => {
  assert.deepEqual(checkLink('  https://example.com/a?b=1  '), { ok: true, url: 'https://example.com/a?b=1' });
  const refused: [string, RegExp][] = [
    ['', /Enter the address/],
    ['see https://example.com', /no spaces/],
    ['example.com', /full address/],
    ['ftp://example.com/file', /Only web addresses/],
    ['javascript:alert(1)', /Only web addresses/],
    [`https://example.com/${'a'.repeat(8_200)}`, /at most 8,192/],
  ];
  for (const [input, reason] of refused) {
    const check = checkLink(input);
    assert.equal(check.ok, false, input.slice(0, 40));
    assert.match((check as { error: string }).error, reason, input.slice(0, 40));
  }
  assert.equal(singleUrl('https://example.com\nhttps://example.org'), undefined, 'two addresses are not one');
  assert.equal(firstUriListEntry('# from a browser\r\nhttps://example.org/x\r\nhttps://example.net/'), 'https://example.org/x');
  assert.equal(firstUriListEntry('# only a comment'), undefined);
});

test('YouTube and Vimeo addresses are videos, played in the privacy-enhanced players', () => {
  const youtube = [
    'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s',
    'https://youtu.be/dQw4w9WgXcQ?si=abc',
    'https://m.youtube.com/watch?v=dQw4w9WgXcQ',
    'https://www.youtube.com/shorts/dQw4w9WgXcQ',
    'https://www.youtube.com/embed/dQw4w9WgXcQ',
    'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
  ];
  for (const url of youtube) {
    const video = videoOf(url);
    assert.equal(video?.provider, 'youtube', url);
    assert.equal(video?.embedUrl, 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1&rel=0', url);
    assert.equal(video?.thumbnailUrl, 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg', url);
    assert.equal(linkNodeType(url), 'video', url);
  }
  for (const url of [
    'https://vimeo.com/76979871',
    'https://vimeo.com/channels/staffpicks/76979871',
    'https://player.vimeo.com/video/76979871',
  ]) {
    const video = videoOf(url);
    assert.equal(video?.provider, 'vimeo', url);
    assert.equal(video?.embedUrl, 'https://player.vimeo.com/video/76979871?dnt=1&autoplay=1', url);
  }
  const notVideos = [
    'https://www.youtube.com/',
    'https://www.youtube.com/@somechannel',
    'https://www.youtube.com/watch?v=<script>',
    'https://vimeo.com/about',
    'https://notyoutube.com/watch?v=dQw4w9WgXcQ',
    'https://example.com/watch?v=dQw4w9WgXcQ',
  ];
  for (const url of notVideos) {
    assert.equal(videoOf(url), undefined, url);
    assert.equal(linkNodeType(url), 'url', url);
  }
});

test('a url card shows the site and the rest of the address', () => {
  assert.deepEqual(addressParts('https://www.example.com/docs/guide?lang=en#top'), {
    host: 'example.com',
    rest: '/docs/guide?lang=en#top',
  });
  assert.deepEqual(addressParts('https://example.com/'), { host: 'example.com', rest: '' });
  assert.deepEqual(addressParts('http://example.com:8080/caf%C3%A9'), { host: 'example.com:8080', rest: '/café' });
});
